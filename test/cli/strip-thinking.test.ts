/**
 * `cclint fix --strip-thinking <session.jsonl>` through the built binary
 * (`dist/cli.js`): the repair for a session stuck on "thinking … cannot be
 * modified" where nothing offline shows why. Plan, diff, backup, audit and
 * restore are the ones every fix goes through.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { thinkingBlock } from '../helpers/fix-twice.js';
import { PROJECT_FOLDER, assistant, jsonl, toolResult, user, uuidOf } from '../helpers/records.js';
import { run, sandbox, writeSession, type Sandbox } from '../support/cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist', 'cli.js');
const NAME = '7d1c0f3e-2b4a-4c5d-9e6f-a1b2c3d4e5f6.jsonl';

// Thinking rows of two responses on the resumed chain; the second's text
// was edited under its kept signature, which the file does not show.
const SESSION = jsonl([
  user('u1'),
  assistant('k1', { parent: 'u1', messageId: 'M1', content: [thinkingBlock('look at the failing test')] }),
  assistant('a1', { parent: 'k1', messageId: 'M1', toolUse: ['t1'] }),
  toolResult('r1', { parent: 'a1', toolUseId: 't1' }),
  assistant('k2', { parent: 'r1', messageId: 'M2', content: [thinkingBlock('it passes now (edited by hand)')] }),
  assistant('a2', { parent: 'k2', messageId: 'M2', text: 'Fixed.' }),
]);

describe('cclint fix --strip-thinking (built binary)', () => {
  let box: Sandbox;
  let file: string;
  const cclint = (...args: string[]) =>
    spawnSync(process.execPath, [cli, ...args], { cwd: box.root, env: box.env, encoding: 'utf8' });
  beforeEach(() => {
    box = sandbox();
    file = writeSession(box, PROJECT_FOLDER, NAME, SESSION);
  });
  afterEach(() => box.cleanup());

  it('is in --help', () => {
    const r = cclint('fix', '--help');
    expect(r.status).toBe(0);
    expect(r.stdout.replace(/\s+/g, ' ')).toContain(' --strip-thinking also drop every thinking block of the conversation resume sends (unsafe;');
  });

  it('takes session files only: no path, or a folder, is bad usage (exit 2) and writes nothing', () => {
    const none = cclint('fix', '--yes', '--strip-thinking');
    expect(none.status).toBe(2);
    expect(none.stderr).toBe('cclint: --strip-thinking needs the session file(s) to strip: cclint fix --strip-thinking <session.jsonl>\n');
    const folder = cclint('fix', '--yes', '--strip-thinking', path.dirname(file));
    expect(folder.status).toBe(2);
    expect(folder.stderr).toBe(`cclint: --strip-thinking takes session files, not folders: ${path.dirname(file)} is a folder\n`);
    expect(fs.readFileSync(file, 'utf8')).toBe(SESSION);
    expect(fs.existsSync(box.cclintHome)).toBe(false);
  });

  it('--dry-run shows the rows it rewrites and writes nothing; without the flag there is nothing to fix', () => {
    expect(cclint('fix', '--dry-run', file).stdout).toBe('would apply 0 fix(es) in 0 of 1 file(s)\n');
    const r = cclint('fix', '--dry-run', '--no-color', '--strip-thinking', file);
    expect(r.status).toBe(0);
    // Four rows go out (two emptied, two relinked past them), two come back: the text rows.
    expect(r.stdout).toContain('\n@@ -1,6 +1,4 @@\n');
    expect(r.stdout.split('\n').filter((l) => l.startsWith('-{'))).toHaveLength(4);
    const added = r.stdout.split('\n').filter((l) => l.startsWith('+{'));
    expect(added.map((l) => /"uuid":"([^"]+)"/.exec(l)?.[1])).toEqual([uuidOf('a1'), uuidOf('a2')]);
    expect(r.stdout).toMatch(/\nwould fix .*7d1c0f3e-[^\n]*: 1 fix\(es\); resume would load 4 of 4 messages \(was 6\)\n\nwould apply 1 fix\(es\) in 1 of 1 file\(s\)\n$/);
    expect(fs.readFileSync(file, 'utf8')).toBe(SESSION);
    const json = JSON.parse(cclint('fix', '--dry-run', '--format', 'json', '--strip-thinking', file).stdout) as {
      files: Array<{ applied: Array<{ ruleId: string; title: string; applicability: string }> }>;
    };
    expect(json.files[0]?.applied.map((a) => [a.ruleId, a.title, a.applicability])).toEqual([
      ['thinking-signature', 'Strip every thinking block of the resumed conversation (--strip-thinking)', 'unsafe'],
    ]);
  });

  it('--yes writes with a backup and an audit line, a second run changes nothing, and restore gives the old bytes back', () => {
    const r = cclint('fix', '--yes', '--strip-thinking', file);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // The thinking rows are no longer sent, hence 4 messages where there were 6.
    expect(r.stdout).toMatch(/^fixed .*7d1c0f3e-[^\n]*: 1 fix\(es\); resume now loads 4 of 4 messages \(was 6\)\n {2}backup .*\n {2}undo with: cclint restore (\S+)\napplied 1 fix\(es\) in 1 of 1 file\(s\)\n$/);
    const id = /undo with: cclint restore (\S+)/.exec(r.stdout)?.[1] as string;
    const stripped = fs.readFileSync(file, 'utf8');
    expect(stripped).not.toMatch(/"thinking"/);
    expect(stripped.trim().split('\n')).toHaveLength(4);

    const audit = fs.readFileSync(path.join(box.cclintHome, 'audit.jsonl'), 'utf8').trim().split('\n');
    expect(audit).toHaveLength(1);
    const entry = JSON.parse(audit[0] as string) as { id: string; decidedBy: string; fixes: Array<{ ruleId: string; applicability: string }> };
    expect([entry.id, entry.decidedBy, entry.fixes.map((f) => [f.ruleId, f.applicability])]).toEqual([id, 'yes', [['thinking-signature', 'unsafe']]]);

    const check = cclint('check', '--format', 'json', file);
    expect(check.status).toBe(0);
    const result = (JSON.parse(check.stdout) as { results: Array<{ errorCount: number; warningCount: number; resume: { loaded: number; apiValid: boolean } }> }).results[0];
    expect([result?.errorCount, result?.warningCount, result?.resume.loaded, result?.resume.apiValid]).toEqual([0, 0, 4, true]);

    const again = cclint('fix', '--yes', '--strip-thinking', file);
    expect([again.status, again.stdout]).toEqual([0, 'applied 0 fix(es) in 0 of 1 file(s)\n']);
    expect(fs.readFileSync(file, 'utf8')).toBe(stripped);

    const restored = cclint('restore', id);
    expect(restored.status).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(SESSION);
  });

  it('interactively: asked as an unsafe fix, Enter declines, y applies', async () => {
    const ask = (answers: string[]) => run(['fix', '--no-color', '--strip-thinking', file], { env: box.env, cwd: box.root, tty: true, answers });
    const declined = await ask(['']);
    expect(declined.stdout).toContain(
      `:2  thinking-signature  --strip-thinking: 2 thinking block(s) in 2 row(s) of the resumed conversation\n[unsafe] Strip every thinking block of the resumed conversation (--strip-thinking)\n`,
    );
    expect(declined.stdout).toContain('Apply this unsafe fix? [y,N,a,d,q,?]');
    expect(declined.code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toBe(SESSION);
    const applied = await ask(['y']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('applied 1 fix(es) in 1 of 1 file(s)');
    expect(fs.readFileSync(file, 'utf8')).not.toContain('"thinking"');
  });
});
