/**
 * CI conventions: `--output-file`, and `--baseline` (ESLint's bulk
 * suppressions): the first run records today's findings, later runs report
 * only new ones and fail only on them, a fixed finding is reported as no
 * longer found, and `--baseline-update` records again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { copyDemo, run, sandbox, type Sandbox } from '../support/cli.js';

const HEALTHY = 'dde4dc22-3a88-480c-ae47-ba8fddb60f02.jsonl';
const BROKEN = '08f63ab4-c21b-49dc-a052-2f9be0b09149.jsonl';

interface JsonReport {
  results: Array<{ filePath: string; messages: Array<{ ruleId: string; line: number; severity: string }> }>;
  summary: { errorCount: number; warningCount: number; infoCount: number };
}

let box: Sandbox;
let project: string;
beforeEach(() => {
  box = sandbox();
  fs.writeFileSync(path.join(box.root, '.cclintrc.json'), '{"root": true}');
  project = copyDemo(box);
});
afterEach(() => box.cleanup());

const check = (...args: string[]) => run(['check', ...args], { env: box.env, cwd: box.root });
const report = (stdout: string): JsonReport => JSON.parse(stdout) as JsonReport;

/** Appends a prompt whose parent exists nowhere: one new phantom-parent error. */
function appendPhantom(file: string): void {
  const record = {
    parentUuid: '9e9e9e9e-0000-4000-8000-000000000000',
    isSidechain: false,
    userType: 'external',
    cwd: '/home/dev/webapp',
    sessionId: path.basename(file, '.jsonl'),
    version: '2.1.330',
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text: 'one more thing' }] },
    uuid: '7a7a7a7a-0000-4000-8000-000000000000',
    timestamp: '2026-10-01T10:00:00.000Z',
  };
  fs.appendFileSync(file, `${JSON.stringify(record)}\n`);
}

describe('--output-file', () => {
  it('writes the report to the file, creating its folder, with the same exit code and nothing on stdout', async () => {
    const r = await check('--format', 'json', '--output-file', 'reports/cclint.json', project);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const written = report(fs.readFileSync(path.join(box.root, 'reports', 'cclint.json'), 'utf8'));
    expect(written.summary.errorCount).toBe(5);
    const direct = await check('--format', 'json', project);
    expect(JSON.parse(direct.stdout)).toEqual(written);
  });

  it('writes no colour codes to the file, even when stdout is a terminal', async () => {
    const r = await run(['check', '-o', 'out.txt', project], { env: { ...box.env, FORCE_COLOR: '1' }, cwd: box.root, tty: true });
    expect(r.code).toBe(1);
    const text = fs.readFileSync(path.join(box.root, 'out.txt'), 'utf8');
    expect(text).toContain('phantom-parent');
    expect(text).not.toContain('\u001b[');
  });

  it('never writes a .jsonl file, which could be a transcript (exit 2)', async () => {
    const transcript = path.join(project, HEALTHY);
    const before = fs.readFileSync(transcript);
    const r = await check('--output-file', transcript, project);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`cclint: --output-file ${transcript}: will not write a .jsonl file, which could be a transcript; give another name\n`);
    expect(fs.readFileSync(transcript).equals(before)).toBe(true);
    expect((await check('--baseline', 'baseline.jsonl', project)).code).toBe(2);
    expect(fs.existsSync(path.join(box.root, 'baseline.jsonl'))).toBe(false);
  });

  it('never writes through a symbolic link that lands on a .jsonl file, dangling or not (exit 2, nothing written)', async () => {
    const transcript = path.join(project, HEALTHY);
    const before = fs.readFileSync(transcript);
    fs.symlinkSync(transcript, path.join(box.root, 'out.html'));
    // Two hops, the last one relative to its own folder.
    fs.symlinkSync('out.html', path.join(box.root, 'report.txt'));
    for (const args of [
      ['check', '--output-file', 'out.html', project],
      ['check', '-o', 'report.txt', project],
      ['sessions', '-o', 'out.html', project],
      ['report', '-o', 'out.html', project],
      ['export', '-o', 'out.html', transcript],
      ['export', '--format', 'html', '-o', 'report.txt', transcript],
      ['check', '--baseline', 'out.html', '--baseline-update', project],
    ]) {
      const r = await run(args, { env: box.env, cwd: box.root });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/: is a symbolic link to \S+\.jsonl, a \.jsonl file, which could be a transcript; cclint will not write through it; give another name\n$/);
    }
    expect(fs.readFileSync(transcript).equals(before)).toBe(true);
    // A dangling link would create its target: a new file the next run reads as a transcript.
    const ghost = path.join(project, 'aaaaaaaa-1111-4111-8111-111111111111.jsonl');
    fs.symlinkSync(ghost, path.join(box.root, 'ghost.json'));
    expect((await check('--format', 'json', '-o', 'ghost.json', project)).code).toBe(2);
    expect(fs.existsSync(ghost)).toBe(false);
  });

  it('follows a link whose target climbs with .. from the folder the link really sits in, as the kernel does (exit 2, nothing written)', async () => {
    // out/L -> deep/a/b (a linked folder); deep/a/b/r.txt -> ../q.txt lands on deep/a/q.txt, a link to the transcript.
    const transcript = path.join(project, HEALTHY);
    const before = fs.readFileSync(transcript);
    const deep = path.join(box.root, 'deep', 'a', 'b');
    fs.mkdirSync(deep, { recursive: true });
    fs.mkdirSync(path.join(box.root, 'out'));
    fs.symlinkSync(transcript, path.join(box.root, 'deep', 'a', 'q.txt'));
    fs.symlinkSync('../q.txt', path.join(deep, 'r.txt'));
    fs.symlinkSync(deep, path.join(box.root, 'out', 'L'));
    for (const args of [
      ['check', '-o', 'out/L/r.txt', project],
      ['sessions', '-o', 'out/L/r.txt', project],
      ['report', '-o', 'out/L/r.txt', project],
      ['fix', '--dry-run', '-o', 'out/L/r.txt', project],
    ]) {
      const r = await run(args, { env: box.env, cwd: box.root });
      expect([r.code, r.stderr], args.join(' ')).toEqual([2, `cclint: --output-file out/L/r.txt: is a symbolic link to ${transcript}, a .jsonl file, which could be a transcript; cclint will not write through it; give another name\n`]);
    }
    expect(fs.readFileSync(transcript).equals(before)).toBe(true);
  });

  it('never writes over a file the run reads, whatever its name (exit 2, nothing written)', async () => {
    const notes = path.join(box.root, 'notes.txt');
    fs.copyFileSync(path.join(project, BROKEN), notes);
    const before = fs.readFileSync(notes);
    fs.symlinkSync(notes, path.join(box.root, 'alias.md'));
    for (const args of [
      ['check', '-o', 'notes.txt', 'notes.txt'],
      ['check', '-o', 'alias.md', 'notes.txt'],
      ['check', '--baseline', 'notes.txt', '--baseline-update', 'notes.txt'],
      ['sessions', '-o', 'notes.txt', 'notes.txt'],
      ['report', '-o', 'notes.txt', 'notes.txt'],
      ['fix', '--dry-run', '-o', 'notes.txt', 'notes.txt'],
      ['export', '-o', 'alias.md', 'notes.txt'],
    ]) {
      const r = await run(args, { env: box.env, cwd: box.root });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`: is ${notes.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, which this run reads; give another name\n$`));
    }
    expect(fs.readFileSync(notes).equals(before)).toBe(true);
  });

  it('replaces a file whole, keeping its mode, and writes through a symbolic link; leaves no temporary file', async () => {
    const target = path.join(box.root, 'out.json');
    fs.writeFileSync(target, 'an older report that is longer than nothing at all'.repeat(10_000));
    fs.chmodSync(target, 0o640);
    const inode = fs.statSync(target).ino;
    await check('--format', 'json', '-o', 'out.json', project);
    const direct = await check('--format', 'json', project);
    expect(fs.readFileSync(target, 'utf8')).toBe(direct.stdout);
    expect(fs.statSync(target).mode & 0o777).toBe(0o640);
    // Replaced, not written over in place: a reader (or a Ctrl-C) never finds half of it.
    expect(fs.statSync(target).ino).not.toBe(inode);
    fs.symlinkSync('out.json', path.join(box.root, 'latest.json'));
    fs.writeFileSync(target, '');
    await check('--format', 'json', '-o', 'latest.json', project);
    expect(fs.lstatSync(path.join(box.root, 'latest.json')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe(direct.stdout);
    expect(fs.readdirSync(box.root).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('writes through a file it may write in a folder where it may not make a temporary file', async () => {
    const target = path.join(box.root, 'out.json');
    fs.writeFileSync(target, 'old');
    const open = fs.openSync;
    // As for a user who owns the file and not its folder (root, which runs these tests, is never refused).
    const refused = vi.spyOn(fs, 'openSync').mockImplementation(((file: fs.PathLike, ...rest: unknown[]) => {
      if (String(file).includes('.cclint-')) throw Object.assign(new Error(`EACCES: permission denied, open '${String(file)}'`), { code: 'EACCES' });
      return (open as (...a: unknown[]) => number)(file, ...rest);
    }) as typeof fs.openSync);
    try {
      const r = await check('--format', 'json', '-o', 'out.json', project);
      expect(r.code).toBe(1);
    } finally {
      refused.mockRestore();
    }
    expect(fs.readFileSync(target, 'utf8')).toBe((await check('--format', 'json', project)).stdout);
    // A new file still needs the folder: refused as before (exit 2).
    const denied = vi.spyOn(fs, 'openSync').mockImplementation(((file: fs.PathLike, ...rest: unknown[]) => {
      if (String(file).includes('.cclint-')) throw Object.assign(new Error('EACCES'), { code: 'EACCES' });
      return (open as (...a: unknown[]) => number)(file, ...rest);
    }) as typeof fs.openSync);
    try {
      expect((await check('--format', 'json', '-o', 'new.json', project)).code).toBe(2);
    } finally {
      denied.mockRestore();
    }
    expect(fs.existsSync(path.join(box.root, 'new.json'))).toBe(false);
  });

  it('removes, when it writes a file, the temporary files of that file a run ended by Ctrl-C left an hour ago', async () => {
    const leftover = (name: string, age: number): string => {
      const file = path.join(box.root, name);
      fs.writeFileSync(file, 'half a report');
      const then = new Date(Date.now() - age);
      fs.utimesSync(file, then, then);
      return name;
    };
    const old = leftover('.out.json.cclint-4242-0a1b2c3d.tmp', 61 * 60 * 1000);
    const fresh = leftover('.out.json.cclint-4243-0a1b2c3e.tmp', 1000);
    const other = leftover('.other.json.cclint-4244-0a1b2c3f.tmp', 61 * 60 * 1000);
    await check('--format', 'json', '-o', 'out.json', project);
    const names = fs.readdirSync(box.root);
    expect(names).not.toContain(old);
    expect(names).toEqual(expect.arrayContaining([fresh, other, 'out.json']));
  });

  it('refuses a folder (exit 2)', async () => {
    fs.mkdirSync(path.join(box.root, 'taken'));
    const r = await check('--output-file', 'taken', project);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cclint: --output-file taken: is a folder; give a file path\n');
  });

  it('names the file that stands where a folder of the path should be (exit 2)', async () => {
    fs.writeFileSync(path.join(box.root, 'plain.txt'), 'x');
    const r = await check('--format', 'json', '-o', 'plain.txt/sub/report.json', project);
    expect([r.code, r.stdout, r.stderr]).toEqual([2, '', `cclint: --output-file plain.txt/sub/report.json: ${path.join(box.root, 'plain.txt')} is a file, not a folder; give another path\n`]);
  });
});

describe('--baseline', () => {
  it('records today\'s findings on first use, then reports only new ones', async () => {
    const first = await check('--format', 'json', '--baseline', 'cclint-baseline.json', project);
    expect(first.code).toBe(0);
    expect(report(first.stdout).summary).toEqual({ files: 4, errorCount: 0, warningCount: 0, infoCount: 0 });
    expect(first.stderr).toBe(
      'cclint: baseline cclint-baseline.json: recorded 28 findings in 4 files; runs with this --baseline report only findings it does not record\n',
    );

    const again = await check('--format', 'json', '--baseline', 'cclint-baseline.json', project);
    expect(again.code).toBe(0);
    expect(report(again.stdout).summary.errorCount).toBe(0);
    expect(again.stderr).toBe('cclint: baseline cclint-baseline.json: 28 recorded findings left out\n');

    appendPhantom(path.join(project, HEALTHY));
    const grown = await check('--format', 'json', '--baseline', 'cclint-baseline.json', project);
    expect(grown.code).toBe(1);
    const findings = report(grown.stdout).results.flatMap((x) => x.messages.map((m) => [path.basename(x.filePath), m.ruleId, m.line]));
    expect(findings).toEqual([[HEALTHY, 'phantom-parent', 9]]);
  });

  it('holds paths relative to itself, rule ids and fingerprints: no transcript content, no line numbers', async () => {
    await check('--baseline', 'ci/baseline.json', project);
    const baseline = JSON.parse(fs.readFileSync(path.join(box.root, 'ci', 'baseline.json'), 'utf8')) as {
      version: number;
      files: Record<string, Record<string, string[]>>;
    };
    expect(baseline.version).toBe(1);
    expect(Object.keys(baseline.files)).toEqual(
      [BROKEN, '30628611-e45f-4f98-a688-010e1428e585.jsonl', 'b2fe508c-5391-4967-ad16-83d569d4f396.jsonl', HEALTHY].map(
        (name) => `../home/.claude/projects/-home-dev-webapp/${name}`,
      ),
    );
    expect(Object.keys(baseline.files[`../home/.claude/projects/-home-dev-webapp/${BROKEN}`] ?? {})).toEqual([
      'duplicate-uuid',
      'orphan-root',
      'string-content',
    ]);
    for (const rules of Object.values(baseline.files)) {
      for (const list of Object.values(rules)) for (const fingerprint of list) expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('says when recorded findings are gone, and --baseline-update forgets them', async () => {
    await check('--baseline', 'b.json', project);
    // A repair removes the session's findings: its records are gone.
    fs.writeFileSync(path.join(project, BROKEN), '');
    const fixed = await check('--format', 'json', '--baseline', 'b.json', project);
    expect(fixed.code).toBe(0);
    expect(fixed.stderr).toContain('cclint: baseline b.json: 20 recorded findings left out; 8 recorded findings no longer found (--baseline-update forgets them)\n');
    const update = await check('--format', 'json', '--baseline', 'b.json', '--baseline-update', project);
    expect(update.code).toBe(0);
    expect(update.stderr).toContain('recorded 20 findings in 3 files');
    const after = await check('--format', 'json', '--baseline', 'b.json', project);
    expect(after.stderr).toContain('cclint: baseline b.json: 20 recorded findings left out\n');
  });

  it('is an error (exit 2) when unreadable as a baseline, or updated without a file', async () => {
    fs.writeFileSync(path.join(box.root, 'bad.json'), '{"version": 7, "files": {}}');
    const bad = await check('--baseline', 'bad.json', project);
    expect(bad.code).toBe(2);
    // Read before the scan: nothing is checked or reported.
    expect(bad.stderr).toBe('cclint: baseline bad.json is not a cclint baseline: version 7, expected 1; record it again with --baseline-update\n');
    expect(bad.stdout).toBe('');
    const lone = await check('--baseline-update', project);
    expect(lone.code).toBe(2);
    expect(lone.stderr).toBe('cclint: --baseline-update needs --baseline <file>\n');
  });
});
