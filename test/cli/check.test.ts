import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyDemo, run, sandbox, type Sandbox } from '../support/cli.js';

const PHANTOM = 'b2fe508c-5391-4967-ad16-83d569d4f396.jsonl';
const HEALTHY = 'dde4dc22-3a88-480c-ae47-ba8fddb60f02.jsonl';

describe('cclint check', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('reports the demo project as JSON with resume figures, exit 1', async () => {
    const dir = copyDemo(box);
    const r = await run(['check', '--format', 'json', dir], { env: box.env, cwd: box.root });
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as {
      version: number;
      results: Array<{
        filePath: string;
        resume: { loaded: number; total: number };
        forks: Record<string, unknown>;
        messages: Array<{ ruleId: string; line: number; severity: string }>;
      }>;
      summary: { files: number; errorCount: number };
    };
    expect(report.version).toBe(2);
    expect(report.summary.files).toBe(4);
    expect(report.summary.errorCount).toBe(5);
    const phantom = report.results.find((x) => x.filePath.endsWith(PHANTOM));
    expect(phantom?.resume).toEqual({ loaded: 6, total: 16, fidelity: 0.375, sdk: 6, apiValid: true, apiViolations: [] });
    expect(phantom?.forks).toEqual({ 'tool-fanout': 0, streaming: 0, progress: 0, 'compaction-replay': 0, rewind: 0, abandoned: [] });
    expect(phantom?.messages.filter((m) => m.severity === 'error').map((m) => [m.ruleId, m.line])).toEqual([['phantom-parent', 11]]);
  });

  it('exits 0 on a healthy session and lists nothing', async () => {
    const dir = copyDemo(box);
    const r = await run(['check', path.join(dir, HEALTHY)], { env: box.env, cwd: box.root });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('✔');
  });

  it('reads $CLAUDE_CONFIG_DIR/projects when no path is given', async () => {
    copyDemo(box);
    const r = await run(['check', '--format', 'json'], { env: box.env, cwd: box.root });
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { summary: { files: number } }).summary.files).toBe(4);
  });

  it('exits 2 with one line naming the folder when there is no projects root', async () => {
    const r = await run(['check'], { env: box.env, cwd: box.root });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`cclint: no Claude Code projects folder at ${path.join(box.configDir, 'projects')}; pass a path, or set CLAUDE_CONFIG_DIR to your Claude Code config folder\n`);
  });

  it('exits 2 naming the default projects root when it is a plain file, in every command that reads it (never read as a transcript)', async () => {
    const root = path.join(box.configDir, 'projects');
    fs.mkdirSync(box.configDir, { recursive: true });
    fs.writeFileSync(root, 'hi\n');
    for (const argv of [['check'], ['sessions'], ['report'], ['search', 'hi'], ['fix', '--dry-run']]) {
      const r = await run(argv, { env: box.env, cwd: box.root });
      expect([argv[0], r.code, r.stdout, r.stderr]).toEqual([
        argv[0],
        2,
        '',
        `cclint: the Claude Code projects folder ${root} is not a folder; pass a path, or set CLAUDE_CONFIG_DIR to your Claude Code config folder\n`,
      ]);
    }
  });

  it('names a missing path, goes on with the rest, and exits 2', async () => {
    const dir = copyDemo(box);
    const r = await run(['check', 'nowhere.jsonl', path.join(dir, HEALTHY)], { env: box.env, cwd: box.root });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cclint: nowhere.jsonl: no such file or folder\n');
    expect(r.stdout).toContain('✔');
  });

  it('does not report "no problems" when nothing named could be read', async () => {
    const r = await run(['check', 'nowhere.jsonl'], { env: box.env, cwd: box.root });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cclint: nowhere.jsonl: no such file or folder\n');
    expect(r.stdout).toBe('');
    const json = await run(['check', '--format', 'json', 'nowhere.jsonl'], { env: box.env, cwd: box.root });
    expect(json.code).toBe(2);
    expect((JSON.parse(json.stdout) as { results: unknown[] }).results).toEqual([]);
  });

  it('copes with a folder named x.jsonl, a symlink loop, an empty file and binary garbage', async () => {
    const dir = path.join(box.root, 'odd');
    fs.mkdirSync(path.join(dir, 'x.jsonl'), { recursive: true });
    fs.symlinkSync('loop', path.join(dir, 'loop'));
    fs.writeFileSync(path.join(dir, 'empty.jsonl'), '');
    fs.writeFileSync(path.join(dir, 'garbage.jsonl'), Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x0a, 0x80, 0x81]));
    const r = await run(['check', '--format', 'json', dir], { env: box.env, cwd: box.root });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${path.join(dir, 'x.jsonl')}: is a directory, not a transcript; skipped`);
    expect(r.stderr).toContain(`${path.join(dir, 'loop')}: too many levels of symbolic links (a link loop)`);
    expect(r.stderr).toContain('odd/empty.jsonl: empty file, nothing to check');
    const report = JSON.parse(r.stdout) as { results: Array<{ filePath: string; messages: Array<{ ruleId: string; line: number }> }> };
    expect(report.results.map((x) => path.basename(x.filePath))).toEqual(['empty.jsonl', 'garbage.jsonl']);
    // Binary garbage is not a transcript: one finding, no line-by-line repairs.
    expect(report.results[1]?.messages.map((m) => [m.ruleId, m.line])).toEqual([['not-a-transcript', 1]]);
  });

  it('checks a file once when a symbolic link leads to its folder again', async () => {
    const dir = copyDemo(box);
    fs.symlinkSync(dir, path.join(path.dirname(dir), 'alias'));
    const r = await run(['check', '--format', 'json', path.dirname(dir)], { env: box.env, cwd: box.root });
    expect((JSON.parse(r.stdout) as { summary: { files: number } }).summary.files).toBe(4);
    expect(r.stderr).toContain('alias: skipped, a symbolic link to');
  });

  it('--quiet hides warnings but --max-warnings still counts them', async () => {
    const file = path.join(box.root, 'warn.jsonl');
    const row = (uuid: string, parent: string | null, ts: string) =>
      JSON.stringify({ parentUuid: parent, type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] }, uuid, timestamp: ts });
    fs.writeFileSync(file, `${row('a1', null, '2026-01-01T00:00:00.000Z')}\n${row('a2', 'a1', 'yesterday')}\n`);
    const quiet = await run(['check', '--quiet', '--max-warnings', '0', file], { env: box.env, cwd: box.root });
    expect(quiet.code).toBe(1);
    expect(quiet.stdout).not.toContain('invalid-timestamp');
    const loud = await run(['check', '--max-warnings', '1', file], { env: box.env, cwd: box.root });
    expect(loud.code).toBe(0);
    expect(loud.stdout).toContain('invalid-timestamp');
  });

  it('--rule runs one rule; unknown rules, formats and bad config are usage errors (exit 2)', async () => {
    const dir = copyDemo(box);
    const one = await run(['check', '--format', 'json', '--rule', 'invalid-json', dir], { env: box.env, cwd: box.root });
    const ids = new Set((JSON.parse(one.stdout) as { results: Array<{ messages: Array<{ ruleId: string }> }> }).results.flatMap((x) => x.messages.map((m) => m.ruleId)));
    expect([...ids]).toEqual(['invalid-json']);
    expect((await run(['check', '--rule', 'no-such-rule', dir], { env: box.env, cwd: box.root })).code).toBe(2);
    expect((await run(['check', '--format', 'xml', dir], { env: box.env, cwd: box.root })).code).toBe(2);
    fs.writeFileSync(path.join(box.root, '.cclintrc.json'), '{"rules":{"phantom-parent":"loud"}}');
    const bad = await run(['check', dir], { env: box.env, cwd: box.root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('rules.phantom-parent');
  });

  it('config can turn a rule off and lower another', async () => {
    const dir = copyDemo(box);
    fs.writeFileSync(path.join(box.root, '.cclintrc.json'), '{"rules":{"phantom-parent":"off","orphan-root":"warning","invalid-json":"off","duplicate-uuid":"warning"}}');
    const r = await run(['check', dir], { env: box.env, cwd: box.root });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('phantom-parent');
    expect(r.stdout).toContain('warning');
  });

  it('explain prints the rule documentation; rules lists every rule', async () => {
    const explain = await run(['explain', 'orphan-root'], { env: box.env, cwd: box.root });
    expect(explain.code).toBe(0);
    for (const section of ['## What it detects', '## Why it matters', '## Fix', '## Known false positives']) {
      expect(explain.stdout).toContain(section);
    }
    const rules = await run(['rules'], { env: box.env, cwd: box.root });
    expect(rules.stdout.split('\n').filter((l) => /^[a-z-]+ +(error|warning|info) /.test(l))).toHaveLength(21);
    expect((await run(['explain', 'nope'], { env: box.env, cwd: box.root })).code).toBe(2);
  });
});
