import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyDemo, run, sandbox, type Sandbox } from '../support/cli.js';

const PHANTOM = 'b2fe508c-5391-4967-ad16-83d569d4f396.jsonl';
const CRASH = '30628611-e45f-4f98-a688-010e1428e585.jsonl';

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
});
