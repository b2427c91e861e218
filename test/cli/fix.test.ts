import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyDemo, run, sandbox, type Sandbox, writeSession } from '../support/cli.js';

const PHANTOM = 'b2fe508c-5391-4967-ad16-83d569d4f396.jsonl';
const CRASH = '30628611-e45f-4f98-a688-010e1428e585.jsonl';
const DUPLICATE = '08f63ab4-c21b-49dc-a052-2f9be0b09149.jsonl';

function snapshot(dir: string): Map<string, Buffer> {
  return new Map(fs.readdirSync(dir).map((n) => [n, fs.readFileSync(path.join(dir, n))]));
}

describe('cclint fix', () => {
  let box: Sandbox;
  let dir: string;
  beforeEach(() => {
    box = sandbox();
    dir = copyDemo(box);
  });
  afterEach(() => box.cleanup());

  it('refuses to ask without a terminal and writes nothing (exit 2)', async () => {
    const before = snapshot(dir);
    const r = await run(['fix', dir], { env: box.env, cwd: box.root });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cclint: fix needs a terminal to ask on; pass --yes to apply safe fixes without asking, or --dry-run to review them\n');
    expect(snapshot(dir)).toEqual(before);
  });

  it('--dry-run prints a unified diff and writes nothing', async () => {
    const before = snapshot(dir);
    const r = await run(['fix', '--dry-run', path.join(dir, PHANTOM)], { env: box.env, cwd: box.root });
    expect(r.stdout).toMatch(/^--- a\/.*b2fe508c.*\n\+\+\+ b\/.*b2fe508c/m);
    expect(r.stdout).toMatch(/^-\{"uuid":"24f68a80[^\n]*"parentUuid":"65e70a65/m);
    expect(r.stdout).toContain('resume would load 16 of 16 messages (was 6)');
    expect(r.code).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    expect(fs.existsSync(box.cclintHome)).toBe(false);
  });

  it('--dry-run --format json lists the planned edits', async () => {
    const r = await run(['fix', '--dry-run', '--format', 'json', path.join(dir, CRASH)], { env: box.env, cwd: box.root });
    const report = JSON.parse(r.stdout) as { files: Array<{ applied: Array<{ ruleId: string; edits: Array<{ kind: string; line: number }> }> }> };
    expect(report.files[0]?.applied.map((a) => [a.ruleId, a.edits.map((e) => `${e.kind}@${e.line}`).join(',')])).toEqual([
      ['invalid-json', 'replace@3'],
      ['invalid-json', 'delete@10'],
    ]);
  });

  it('--yes repairs with a 0600 backup and an audit line, and restore undoes it', async () => {
    const file = path.join(dir, PHANTOM);
    const original = fs.readFileSync(file);
    const r = await run(['fix', '--yes', file], { env: box.env, cwd: box.root });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('resume now loads 16 of 16 messages (was 6)');
    const audit = fs.readFileSync(path.join(box.cclintHome, 'audit.jsonl'), 'utf8').trim().split('\n');
    expect(audit).toHaveLength(1);
    const entry = JSON.parse(audit[0] as string) as { id: string; backup: string; sha256Before: string; sha256After: string; decidedBy: string };
    expect(entry.decidedBy).toBe('yes');
    expect(entry.sha256Before).not.toBe(entry.sha256After);
    expect(fs.readFileSync(entry.backup)).toEqual(original);
    expect(fs.statSync(entry.backup).mode & 0o777).toBe(0o600);
    expect(entry.backup.startsWith(box.cclintHome)).toBe(true);

    const check = await run(['check', '--format', 'json', file], { env: box.env, cwd: box.root });
    expect((JSON.parse(check.stdout) as { summary: { errorCount: number } }).summary.errorCount).toBe(0);
    const again = await run(['fix', '--yes', file], { env: box.env, cwd: box.root });
    expect(again.stdout).toContain('applied 0 fix(es)');

    const undo = await run(['restore', entry.id], { env: box.env, cwd: box.root });
    expect(undo.code).toBe(0);
    expect(fs.readFileSync(file)).toEqual(original);
  });

  it('refuses a session changed in the last minute unless --force', async () => {
    const file = path.join(dir, PHANTOM);
    const now = new Date();
    fs.utimesSync(file, now, now);
    const before = fs.readFileSync(file);
    const refused = await run(['fix', '--yes', file], { env: box.env, cwd: box.root });
    expect(refused.code).toBe(2);
    expect(fs.readFileSync(file)).toEqual(before);
    const forced = await run(['fix', '--yes', '--force', file], { env: box.env, cwd: box.root });
    expect(forced.code).toBe(0);
    expect(fs.readFileSync(file)).not.toEqual(before);
  });

  it('interactive: y applies the fix, n leaves the file alone', async () => {
    const file = path.join(dir, PHANTOM);
    const original = fs.readFileSync(file);
    const no = await run(['fix', file], { env: box.env, cwd: box.root, tty: true, answers: ['n'] });
    expect(no.stdout).toContain('Apply this fix? [y,n,a,d,q,?]');
    expect(fs.readFileSync(file)).toEqual(original);
    expect(no.code).toBe(1);
    const yes = await run(['fix', file], { env: box.env, cwd: box.root, tty: true, answers: ['?', 'y'] });
    expect(yes.stdout).toContain('a - apply this fix and every later fix of the same rule in this file');
    expect(yes.code).toBe(0);
    expect(fs.readFileSync(file)).not.toEqual(original);
    const audit = JSON.parse(fs.readFileSync(path.join(box.cclintHome, 'audit.jsonl'), 'utf8').trim()) as { decidedBy: string };
    expect(audit.decidedBy).toBe('interactive');
  });
  it('interactive: shows each hunk at its real line numbers, offers unsafe fixes marked, and Enter declines them', async () => {
    const file = path.join(dir, DUPLICATE);
    const original = fs.readFileSync(file);
    const r = await run(['fix', '--no-color', file], { env: box.env, cwd: box.root, tty: true, answers: ['', ''] });
    // The duplicate on line 5 shadows line 4: the fix deletes line 4 of the file, shown with its context.
    expect(r.stdout).toContain('[unsafe] Delete the superseded earlier body');
    expect(r.stdout).toContain('@@ -3,3 +3,2 @@');
    expect(r.stdout).toContain('[unsafe] Relink parentUuid to assistant 426de090 on line 7');
    expect(r.stdout).toContain('@@ -7,3 +7,3 @@');
    expect(r.stdout.match(/Apply this unsafe fix\? \[y,N,a,d,q,\?\]/g)).toHaveLength(2);
    expect(r.stdout).toContain('applied 0 fix(es) in 0 of 1 file(s); 2 error(s) remain');
    expect(fs.readFileSync(file)).toEqual(original);
    expect(r.code).toBe(1);
  });

  it('interactive: a live session is not asked about; it is skipped with the reason the write would give, and left as it was', async () => {
    const file = path.join(dir, DUPLICATE);
    const original = fs.readFileSync(file);
    const now = new Date();
    fs.utimesSync(file, now, now);
    const r = await run(['fix', '--no-color', file], { env: box.env, cwd: box.root, tty: true, answers: ['y', 'y'] });
    expect(r.stdout).not.toContain('Apply this');
    expect(r.stderr).toMatch(new RegExp(`^cclint: skipped \\S*${DUPLICATE.replace('.', '\\.')}: refusing to write .*changed \\d+ s ago and may still be open in Claude Code.*--force$`, 'm'));
    expect(r.stdout).toContain('applied 0 fix(es) in 0 of 1 file(s)');
    expect(fs.readFileSync(file)).toEqual(original);
    expect(r.code).toBe(2);
    // With --force it is asked about as any other session.
    const forced = await run(['fix', '--no-color', '--force', file], { env: box.env, cwd: box.root, tty: true, answers: ['n', 'n'] });
    expect(forced.stdout.match(/Apply this unsafe fix\? \[y,N,a,d,q,\?\]/g)).toHaveLength(2);
    expect(forced.code).toBe(1);
  });

  it('never appends the audit line to a file that is not an audit log, nor keeps state in the projects folder holding the session (exit 2, nothing changed)', async () => {
    const file = path.join(dir, PHANTOM);
    const other = path.join(dir, CRASH);
    const before = snapshot(dir);
    const outside = path.join(box.root, 'old-notes.jsonl');
    fs.writeFileSync(outside, '{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}\n');
    // A session saved outside any projects folder, named as its own audit log.
    const loose = path.join(box.root, 'saved', PHANTOM);
    fs.mkdirSync(path.dirname(loose));
    fs.copyFileSync(file, loose);
    fs.utimesSync(loose, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000));
    for (const [log, target] of [
      [outside, file],
      [loose, loose],
    ] as const) {
      const r = await run(['fix', '--yes', '--audit-log', log, target], { env: box.env, cwd: box.root });
      expect(r.code, log).toBe(2);
      expect(r.stderr).toContain(`${log} is not a cclint audit log (its first line is not an audit entry), and cclint appends only to its own; give another --audit-log; nothing was changed`);
    }
    expect(fs.readFileSync(outside, 'utf8')).toBe('{"type":"user","uuid":"u1","parentUuid":null,"message":{"role":"user","content":"hi"}}\n');
    expect(fs.readFileSync(loose)).toEqual(before.get(PHANTOM));
    // Another session of the folder, and a projects folder that is not the default one.
    const copy = copyDemo(box, path.join(box.root, 'laptop', 'projects'));
    for (const args of [
      ['--audit-log', file],
      ['--audit-log', other],
      ['--audit-log', path.join(copy, 'audit.jsonl')],
      ['--backup-dir', path.join(box.root, 'laptop', 'projects', 'backups')],
    ]) {
      const target = args[1]?.startsWith(copy) || args[1]?.includes('laptop') ? path.join(copy, PHANTOM) : file;
      const r = await run(['fix', '--yes', ...args, target], { env: box.env, cwd: box.root });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/refusing to keep the (audit log|backup folder) at .*: it is inside the Claude Code projects folder /);
    }
    expect(snapshot(dir)).toEqual(before);
    expect(fs.readFileSync(path.join(copy, PHANTOM))).toEqual(before.get(PHANTOM));
    expect(fs.existsSync(path.join(copy, 'audit.jsonl'))).toBe(false);
    expect(fs.existsSync(path.join(box.root, 'laptop', 'projects', 'backups'))).toBe(false);
    // Its own log, with entries, is appended to as before.
    const log = path.join(box.root, 'audit.jsonl');
    expect((await run(['fix', '--yes', '--audit-log', log, file], { env: box.env, cwd: box.root })).code).toBe(0);
    expect((await run(['fix', '--yes', '--audit-log', log, other], { env: box.env, cwd: box.root })).code).toBe(0);
    expect(fs.readFileSync(log, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('interactive: a declined fix is not asked again when a later pass moves its line', async () => {
    const file = path.join(dir, CRASH);
    // Line 3 holds two glued records (split in two: every later line moves down); line 10 is torn.
    const r = await run(['fix', file], { env: box.env, cwd: box.root, tty: true, answers: ['y', 'n'] });
    expect(r.stdout.match(/Apply this/g)).toHaveLength(2);
    expect(r.code).toBe(1);
    const check = await run(['check', '--format', 'json', file], { env: box.env, cwd: box.root });
    const messages = (JSON.parse(check.stdout) as { results: Array<{ messages: Array<{ ruleId: string; line: number }> }> }).results[0]?.messages;
    expect(messages?.filter((m) => m.ruleId === 'invalid-json').map((m) => m.line)).toEqual([11]);
  });

  it('interactive: q stops, writes what this file accepted, and the summary says what was left', async () => {
    const r = await run(['fix', dir], { env: box.env, cwd: box.root, tty: true, answers: ['y', 'q'] });
    expect(r.stdout).toMatch(/fixed [^\n]*08f63ab4[^\n]*: 1 fix\(es\)/);
    expect(r.stdout).toContain('applied 1 fix(es) in 1 of 1 file(s); quit before the other 3 file(s); 1 error(s) remain');
    expect(r.code).toBe(1);
  });

  it('names --audit-log in the undo command when one was given, and restore --list shows the fix', async () => {
    const file = path.join(dir, PHANTOM);
    const log = path.join(box.root, 'my logs', 'audit.jsonl');
    const r = await run(['fix', '--yes', '--audit-log', log, file], { env: box.env, cwd: box.root });
    const id = /undo with: cclint restore (\S+) --audit-log '([^']+)'\n/.exec(r.stdout);
    expect(id?.[2]).toBe(log);
    const list = await run(['restore', '--list', '--audit-log', log], { env: box.env, cwd: box.root });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${id?.[1]}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ  as written  phantom-parent  .*b2fe508c`, 'm'));
    const undo = await run(['restore', id?.[1] as string, '--audit-log', log], { env: box.env, cwd: box.root });
    expect(undo.stdout).toMatch(/undo with: cclint restore \S+ --audit-log '[^']+'\n$/);
    const json = await run(['restore', '--list', '--format', 'json', '--audit-log', log], { env: box.env, cwd: box.root });
    const rows = JSON.parse(json.stdout) as Array<{ id: string; kind: string; state: string; undone: boolean }>;
    expect(rows.map((row) => [row.kind, row.state, row.undone])).toEqual([
      ['restore', 'as-written', false],
      ['fix', 'before', true],
    ]);
    expect(rows[1]?.id).toBe(id?.[1]);
  });

  /** `fix --yes` then `restore` of a transcript owned by uid:gid, mode 0600: the owner, group and mode stay. */
  async function fixAndRestoreKeepOwner(uid: number, gid: number): Promise<void> {
    const file = path.join(dir, PHANTOM);
    const original = fs.readFileSync(file);
    fs.chownSync(file, uid, gid);
    fs.chmodSync(file, 0o600);
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(file, old, old);
    const owner = (): [number, number, number] => {
      const st = fs.statSync(file);
      return [st.uid, st.gid, st.mode & 0o7777];
    };
    const r = await run(['fix', '--yes', file], { env: box.env, cwd: box.root });
    expect(r.code).toBe(0);
    expect(fs.readFileSync(file)).not.toEqual(original);
    expect(owner()).toEqual([uid, gid, 0o600]);
    const id = /undo with: cclint restore (\S+)/.exec(r.stdout)?.[1] as string;
    const undo = await run(['restore', id], { env: box.env, cwd: box.root });
    expect(undo.code).toBe(0);
    expect(fs.readFileSync(file)).toEqual(original);
    expect(owner()).toEqual([uid, gid, 0o600]);
  }

  it('--yes and restore keep the owner, group and mode of a transcript the user running them owns', async () => {
    await fixAndRestoreKeepOwner(process.getuid?.() ?? 0, process.getgid?.() ?? 0);
  });

  // Only root can give the transcript to another user first.
  it.skipIf(process.getuid?.() !== 0)('sudo: --yes and restore leave a transcript owned by its user (1234:1234, 0600), not by root', async () => {
    await fixAndRestoreKeepOwner(1234, 1234);
  });

  it('prints an undo command that works when --backup-dir was given, and so does restore', async () => {
    const file = path.join(dir, PHANTOM);
    const backups = path.join(box.root, 'my backups');
    const r = await run(['fix', '--yes', '--backup-dir', backups, file], { env: box.env, cwd: box.root });
    const undo = /undo with: (cclint restore \S+ --backup-dir '[^']+')\n/.exec(r.stdout)?.[1];
    expect(undo).toBe(`cclint restore ${/undo with: cclint restore (\S+)/.exec(r.stdout)?.[1]} --backup-dir '${backups}'`);
    const id = /undo with: cclint restore (\S+)/.exec(r.stdout)?.[1] as string;
    const restored = await run(['restore', id, '--backup-dir', backups], { env: box.env, cwd: box.root });
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toMatch(/undo with: cclint restore \S+ --backup-dir '[^']+'\n$/);
  });

  it('starts a new line before its audit entry when the log\'s last line was torn, so the fix can still be undone', async () => {
    const log = path.join(box.cclintHome, 'audit.jsonl');
    expect((await run(['fix', '--yes', path.join(dir, PHANTOM)], { env: box.env, cwd: box.root })).code).toBe(0);
    fs.appendFileSync(log, '{"id":"torn');
    const r = await run(['fix', '--yes', path.join(dir, CRASH)], { env: box.env, cwd: box.root });
    const id = /undo with: cclint restore (\S+)/.exec(r.stdout)?.[1] as string;
    const list = await run(['restore', '--list', '--format', 'json'], { env: box.env, cwd: box.root });
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((row) => row.id)).toContain(id);
    const undo = await run(['restore', id], { env: box.env, cwd: box.root });
    expect(undo.code, undo.stderr).toBe(0);
  });

  it('restore --list says a file that grew after a fix (a live session went on) is as written and grown, which restore undoes keeping the lines', async () => {
    const file = path.join(dir, PHANTOM);
    const r = await run(['fix', '--yes', file], { env: box.env, cwd: box.root });
    const id = /undo with: cclint restore (\S+)/.exec(r.stdout)?.[1] as string;
    fs.appendFileSync(file, '{"type":"user","uuid":"77777777-7777-4777-8777-777777777777","parentUuid":null}\n');
    const list = await run(['restore', '--list'], { env: box.env, cwd: box.root });
    expect(list.stdout).toMatch(new RegExp(`^${id}  \\S+ \\S+  as written, grown since  `, 'm'));
    const json = await run(['restore', '--list', '--format', 'json'], { env: box.env, cwd: box.root });
    expect((JSON.parse(json.stdout) as Array<{ state: string }>)[0]?.state).toBe('grown');
    const undo = await run(['restore', id, '--force'], { env: box.env, cwd: box.root });
    expect(undo.code, undo.stderr).toBe(0);
  });

  it('restore --list says when an entry\'s backup is gone (restore cannot undo it then)', async () => {
    const r = await run(['fix', '--yes', path.join(dir, PHANTOM)], { env: box.env, cwd: box.root });
    const id = /undo with: cclint restore (\S+)/.exec(r.stdout)?.[1] as string;
    const backup = /backup (\S+)\n/.exec(r.stdout)?.[1] as string;
    fs.rmSync(backup);
    const list = await run(['restore', '--list'], { env: box.env, cwd: box.root });
    expect(list.stdout).toMatch(new RegExp(`^${id}  \\S+ \\S+  as written, backup gone  `, 'm'));
    const json = await run(['restore', '--list', '--format', 'json'], { env: box.env, cwd: box.root });
    expect((JSON.parse(json.stdout) as Array<{ backupMissing?: boolean }>)[0]?.backupMissing).toBe(true);
  });

  it('--rule naming no rule is bad usage (exit 2, with the closest id), as it is for check', async () => {
    const file = path.join(dir, PHANTOM);
    const before = fs.readFileSync(file);
    for (const args of [['--dry-run'], ['--yes']]) {
      const r = await run(['fix', ...args, '--rule', 'phantom-parnt', file], { env: box.env, cwd: box.root });
      expect([r.code, r.stderr]).toEqual([2, 'cclint: --rule phantom-parnt: unknown rule "phantom-parnt" (did you mean "phantom-parent"?) (see `cclint rules`)\n']);
    }
    expect(fs.readFileSync(file)).toEqual(before);
  });

  it('--dry-run reports in check\'s formats what would remain once fixed: json (schema version 2, the plan as files), sarif, github; writes nothing', async () => {
    const before = snapshot(dir);
    const json = await run(['fix', '--dry-run', '--format', 'json', dir], { env: box.env, cwd: box.root });
    const report = JSON.parse(json.stdout) as {
      version: number;
      results: Array<{ filePath: string; errorCount: number; messages: Array<{ ruleId: string }>; resume: { loaded: number } }>;
      summary: { files: number; errorCount: number };
      files: Array<{ applied: unknown[] }>;
    };
    expect(report.version).toBe(2);
    expect(report.summary).toMatchObject({ files: 4, errorCount: 2 });
    expect(report.results.map((r) => r.messages.map((m) => m.ruleId)).flat().sort()).toEqual(['duplicate-uuid', 'orphan-root']);
    expect(report.files).toHaveLength(4);
    expect(json.code).toBe(1);
    const sarif = await run(['fix', '--dry-run', '--format', 'sarif', dir], { env: box.env, cwd: box.root });
    const log = JSON.parse(sarif.stdout) as { version: string; runs: Array<{ results: Array<{ ruleId: string; locations: unknown[] }> }> };
    expect(log.version).toBe('2.1.0');
    expect(log.runs[0]?.results.map((r) => r.ruleId).sort()).toEqual(['duplicate-uuid', 'orphan-root']);
    const github = await run(['fix', '--dry-run', '--format', 'github', dir], { env: box.env, cwd: box.root });
    expect(github.stdout).toMatch(/^::error file=\S+08f63ab4-c21b-49dc-a052-2f9be0b09149\.jsonl,line=8,title=cclint\(orphan-root\)::/m);
    expect(snapshot(dir)).toEqual(before);
  });

  it('--dry-run --format json: each result is what check reports once fix --yes has run, a file named by no session id and one that is not a transcript included', async () => {
    // A copy of a session under a name that is not its id, and a binary file: check names the first by its records' session id, the second not-a-transcript.
    fs.copyFileSync(path.join(dir, PHANTOM), path.join(dir, 'renamed-copy.jsonl'));
    fs.writeFileSync(path.join(dir, 'aaaaaaaa-1111-4111-8111-111111111111.jsonl'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    const old = new Date(Date.now() - 3_600_000);
    for (const name of fs.readdirSync(dir)) fs.utimesSync(path.join(dir, name), old, old);
    interface Result {
      filePath: string;
      sessionId: string | null;
      resume: Record<string, unknown> | null;
      messages: Array<{ severity: string; fix?: unknown }>;
    }
    const dry = JSON.parse((await run(['fix', '--dry-run', '-f', 'json', dir], { env: box.env, cwd: box.root })).stdout) as { results: Result[] };
    expect((await run(['fix', '--yes', dir], { env: box.env, cwd: box.root })).code).toBe(2); // the binary file is skipped
    const checked = JSON.parse((await run(['check', '-f', 'json', dir], { env: box.env, cwd: box.root })).stdout) as { results: Result[] };
    // fix lists findings at warning level and above, without fixes (info ones are counted), and no forks (an added field of check's).
    const comparable = ({ forks: _forks, ...r }: Result & { forks?: unknown }) => ({
      ...r,
      messages: r.messages.filter((m) => m.severity !== 'info').map(({ fix: _fix, ...m }) => m),
    });
    const checkedByFile = new Map(checked.results.map((r) => [r.filePath, comparable(r)]));
    expect(dry.results.map((r) => r.filePath).sort()).toEqual([...checkedByFile.keys()].sort());
    for (const r of dry.results) expect(comparable(r), r.filePath).toEqual(checkedByFile.get(r.filePath));
    expect(dry.results.find((r) => r.filePath.endsWith('renamed-copy.jsonl'))?.sessionId).toBe(PHANTOM.replace('.jsonl', ''));
    expect(dry.results.find((r) => r.filePath.endsWith('aaaaaaaa-1111-4111-8111-111111111111.jsonl'))?.resume).toBeNull();
  });

  it('refuses --format without --dry-run, --output-file without --dry-run (before asking for a terminal), and a severity on fix --rule (exit 2)', async () => {
    const before = snapshot(dir);
    const cases: Array<[string[], string]> = [
      [['fix', '--yes', '-f', 'json', dir], 'cclint: --format json goes with --dry-run (what check would report once fixed); a fix that writes prints what it wrote, and its record is the audit log (cclint restore --list --format json)\n'],
      [['fix', '-o', 'x.txt', dir], 'cclint: --output-file goes with --dry-run: a fix writes the sessions themselves, and its record is the audit log (cclint restore --list)\n'],
      [['fix', '--dry-run', '--rule', 'phantom-parent=error', dir], 'cclint: --rule phantom-parent=error: fix takes a rule id without a severity (--rule phantom-parent); severities are for check --rule and the config\n'],
    ];
    for (const [argv, stderr] of cases) {
      const r = await run(argv, { env: box.env, cwd: box.root });
      expect([r.code, r.stdout, r.stderr], argv.join(' ')).toEqual([2, '', stderr]);
    }
    expect(snapshot(dir)).toEqual(before);
  });

  it('--max-warnings: exit 1 when more warnings than that remain after fixing, as check counts them', async () => {
    // A phantom parent bridged by resume is a warning that the fix takes away; one left when its fix is unsafe.
    const file = writeSession(box, '-home-dev-warn', '5e550001-0000-4000-8000-000000000000.jsonl', [
      '{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"00000000-0000-4000-8000-000000000001","sessionId":"5e550001-0000-4000-8000-000000000000","timestamp":"2026-01-05T04:00:00.000Z","message":{"role":"user","content":"q"}}',
      '{"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant","uuid":"00000000-0000-4000-8000-000000000002","sessionId":"5e550001-0000-4000-8000-000000000000","timestamp":"2026-01-05T04:00:01.000Z","message":{"id":"msg_1","role":"assistant","content":[{"type":"text","text":"a"}]}}',
      '{"parentUuid":"ghost-parent","isSidechain":false,"type":"user","uuid":"00000000-0000-4000-8000-000000000003","sessionId":"5e550001-0000-4000-8000-000000000000","timestamp":"2026-01-05T04:00:02.000Z","message":{"role":"user","content":"q2"}}',
      '',
    ].join('\n'));
    const check = await run(['check', '--format', 'json', file], { env: box.env, cwd: box.root });
    const warnings = (JSON.parse(check.stdout) as { summary: { warningCount: number } }).summary.warningCount;
    expect(warnings).toBeGreaterThan(0);
    const over = await run(['fix', '--dry-run', '--rule', 'string-content', '--max-warnings', String(warnings - 1), file], { env: box.env, cwd: box.root });
    expect(over.code).toBe(1);
    expect(over.stdout).toContain(`cclint found too many warnings (maximum: ${warnings - 1}; ${warnings} remain).`);
    const within = await run(['fix', '--dry-run', '--rule', 'string-content', '--max-warnings', String(warnings), file], { env: box.env, cwd: box.root });
    expect(within.code).toBe(0);
    const bad = await run(['fix', '--dry-run', '--max-warnings', '-1', file], { env: box.env, cwd: box.root });
    expect(bad.code).toBe(2);
  });

  it('--quiet: a run that leaves nothing at error level prints nothing (the audit log keeps the receipt); errors left print the summary without hints', async () => {
    const clean = await run(['fix', '--yes', '--quiet', path.join(dir, PHANTOM)], { env: box.env, cwd: box.root });
    expect(clean).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(fs.readFileSync(path.join(box.cclintHome, 'audit.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
    const left = await run(['fix', '--yes', '--quiet', path.join(dir, DUPLICATE)], { env: box.env, cwd: box.root });
    expect(left).toEqual({ code: 1, stdout: 'applied 0 fix(es) in 0 of 1 file(s); 2 error(s) remain (see `cclint check`)\n', stderr: '' });
    const loud = await run(['fix', '--yes', path.join(dir, DUPLICATE)], { env: box.env, cwd: box.root });
    expect(loud.stdout).toContain('2 more fix(es) available with --unsafe');
  });

  it('--dry-run --quiet --format json reports errors only, as check --quiet does', async () => {
    const all = JSON.parse((await run(['fix', '--dry-run', '-f', 'json', dir], { env: box.env, cwd: box.root })).stdout) as { summary: Record<string, number> };
    const quiet = JSON.parse((await run(['fix', '--dry-run', '-q', '-f', 'json', dir], { env: box.env, cwd: box.root })).stdout) as { summary: Record<string, number> };
    expect(all.summary.infoCount).toBeGreaterThan(0);
    expect(quiet.summary).toEqual({ ...all.summary, warningCount: 0, infoCount: 0 });
  });

  it('--output-file: the report of a dry run goes to the file, nothing to stdout; refused without --dry-run and for a .jsonl name (exit 2)', async () => {
    const before = snapshot(dir);
    const out = path.join(box.root, 'plan.json');
    const toFile = await run(['fix', '--dry-run', '-f', 'json', '-o', out, dir], { env: box.env, cwd: box.root });
    const toStdout = await run(['fix', '--dry-run', '-f', 'json', dir], { env: box.env, cwd: box.root });
    expect([toFile.code, toFile.stdout]).toEqual([toStdout.code, '']);
    expect(fs.readFileSync(out, 'utf8')).toBe(toStdout.stdout);
    const diff = path.join(box.root, 'plan.diff');
    await run(['fix', '--dry-run', '-o', diff, path.join(dir, PHANTOM)], { env: { ...box.env, FORCE_COLOR: '1' }, cwd: box.root });
    expect(fs.readFileSync(diff, 'utf8')).toMatch(/^--- a\/.*b2fe508c/m);
    expect(fs.readFileSync(diff, 'utf8')).not.toContain('\u001b[');
    const applying = await run(['fix', '--yes', '-o', out, dir], { env: box.env, cwd: box.root });
    expect([applying.code, applying.stderr]).toEqual([
      2,
      'cclint: --output-file goes with --dry-run: a fix writes the sessions themselves, and its record is the audit log (cclint restore --list)\n',
    ]);
    const transcript = await run(['fix', '--dry-run', '-o', path.join(box.root, 'x.jsonl'), dir], { env: box.env, cwd: box.root });
    expect(transcript.code).toBe(2);
    expect(snapshot(dir)).toEqual(before);
  });

  it('restore --list with no audit log says there is nothing yet; a bad --limit is exit 2', async () => {
    const empty = await run(['restore', '--list'], { env: box.env, cwd: box.root });
    expect([empty.code, empty.stdout]).toEqual([0, 'no fixes recorded yet\n']);
    const bad = await run(['restore', '--list', '--limit', '0'], { env: box.env, cwd: box.root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('cclint: --limit must be a whole number of 1 or more, not "0"\n');
  });

  it('over a folder, plans only the sessions with a fix to offer, and says what planning every one of them says', async () => {
    // Besides the demo (three sessions with fixes, one healthy whose typed prompt is a
    // string: an opt-in fix), a session with a warning no rule can fix, and a file
    // that is not a transcript. The machine formats plan every file; the diff does not.
    const row = (uuid: string, parent: string | null, ts: string) =>
      JSON.stringify({ parentUuid: parent, type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] }, uuid, timestamp: ts });
    writeSession(box, '-home-dev-webapp', '5d0c3b8e-1f5a-4c59-9d39-3c3f0b1f7a11.jsonl', `${row('a1', null, '2026-01-01T00:00:00.000Z')}\n${row('a2', 'a1', 'yesterday')}\n`);
    writeSession(box, '-home-dev-webapp', 'notes.jsonl', '{"note":"not a transcript"}\n');
    const before = snapshot(dir);
    const diffed = (stdout: string): string[] => [...stdout.matchAll(/^\+\+\+ b\/(.*)$/gm)].map((m) => path.basename(m[1] as string)).sort();
    for (const flags of [[], ['--rule', 'string-content'], ['--unsafe', '--rule', 'string-content'], ['--rule', 'phantom-parent']]) {
      const shown = await run(['fix', '--dry-run', '--max-warnings', '0', ...flags, dir], { env: box.env, cwd: box.root });
      const planned = await run(['fix', '--dry-run', '--format', 'json', '--max-warnings', '0', ...flags, dir], { env: box.env, cwd: box.root });
      const report = JSON.parse(planned.stdout) as {
        files: Array<{ filePath: string; applied: unknown[]; sha256Before: string; sha256After: string; remaining: { errorCount: number; warningCount: number } }>;
      };
      const changed = report.files.filter((f) => f.applied.length > 0 && f.sha256After !== f.sha256Before);
      const fixes = changed.reduce((n, f) => n + f.applied.length, 0);
      const errors = report.files.reduce((n, f) => n + f.remaining.errorCount, 0);
      const warnings = report.files.reduce((n, f) => n + f.remaining.warningCount, 0);
      expect(report.files).toHaveLength(5);
      expect(warnings, 'the invalid timestamp').toBe(1);
      expect(diffed(shown.stdout), flags.join(' ')).toEqual(changed.map((f) => path.basename(f.filePath)).sort());
      expect(shown.stdout).toContain(
        `would apply ${fixes} fix(es) in ${changed.length} of ${report.files.length} file(s)${errors > 0 ? `; ${errors} error(s) remain (see \`cclint check\`)` : ''}\n`,
      );
      expect(shown.stdout).toContain(`cclint found too many warnings (maximum: 0; ${warnings} remain).\n`);
      expect(shown.stderr).toContain('notes.jsonl: not a transcript');
      expect([shown.code, planned.code]).toEqual([2, 2]);
    }
    const named = await run(['fix', '--dry-run', '--unsafe', '--rule', 'string-content', dir], { env: box.env, cwd: box.root });
    expect(diffed(named.stdout)).toContain('dde4dc22-3a88-480c-ae47-ba8fddb60f02.jsonl');
    expect(snapshot(dir)).toEqual(before);
  });
});
