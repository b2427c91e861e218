import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, jsonl, PROJECT_FOLDER, resetClock, user, uuidOf } from '../helpers/records.js';
import { run, sandbox, writeSession, type Sandbox } from '../support/cli.js';

const SECRET = 'sk-ant-api03-NOT-A-REAL-KEY-0123456789abcdef';

/** A prompt holding a secret and an escape sequence, whose parent is null in mid-file a minute after its answer. */
function sessionWithSecret(): string {
  resetClock();
  return jsonl([
    user('u1'),
    assistant('a1', { parent: 'u1' }),
    assistant('a2', { parent: null, gapMs: 2_000, text: `here is the key ${SECRET} \u001b]0;pwned\u0007 done` }),
    user('u2', { parent: 'a2' }),
    assistant('a3', { parent: 'u2' }),
  ]);
}

describe('what fix reports about a plan', () => {
  let box: Sandbox;
  let file: string;
  beforeEach(() => {
    box = sandbox();
    file = writeSession(box, PROJECT_FOLDER, `${uuidOf('session')}.jsonl`, sessionWithSecret());
  });
  afterEach(() => box.cleanup());

  it('--dry-run --format json carries the changed fields only, never the rest of the record', async () => {
    const r = await run(['fix', '--dry-run', '--format', 'json', file], { env: box.env, cwd: box.root });
    expect(r.stdout).not.toContain(SECRET);
    expect(r.stdout).not.toContain('here is the key');
    const report = JSON.parse(r.stdout) as { files: Array<{ applied: Array<{ ruleId: string; edits: unknown[] }> }> };
    expect(report.files[0]?.applied).toEqual([
      expect.objectContaining({
        ruleId: 'orphan-root',
        edits: [
          {
            kind: 'replace',
            line: 3,
            sha256Before: expect.stringMatching(/^[0-9a-f]{64}$/),
            sha256After: expect.stringMatching(/^[0-9a-f]{64}$/),
            uuid: uuidOf('a2'),
            lines: 1,
            changes: [{ path: 'parentUuid', before: null, after: uuidOf('a1') }],
          },
        ],
      }),
    ]);
  });

  it('--dry-run and the audit log keep the secret out, and the terminal sees no escape sequence', async () => {
    const dry = await run(['fix', '--dry-run', file], { env: box.env, cwd: box.root });
    expect(dry.stdout).toContain('-{"uuid":');
    expect(dry.stdout).not.toContain('\u001b');
    expect(dry.stdout).not.toContain(SECRET);
    const applied = await run(['fix', '--yes', file], { env: box.env, cwd: box.root });
    expect(applied.code).toBe(0);
    const audit = fs.readFileSync(path.join(box.cclintHome, 'audit.jsonl'), 'utf8');
    expect(audit).not.toContain(SECRET);
    expect(audit).not.toContain('here is the key');
  });

  it('shows an escape sequence in a folder name as a visible escape in the diff, the summary and the undo line', async () => {
    const hostile = path.join(box.configDir, 'projects', 'evil\u001b]0;pwned\u0007\u001b[2J');
    fs.mkdirSync(hostile, { recursive: true });
    const moved = path.join(hostile, path.basename(file));
    fs.renameSync(file, moved);
    const dry = await run(['fix', '--dry-run', moved], { env: box.env, cwd: box.root });
    // The diff header quotes such a name the way git does; the summary escapes it.
    expect(dry.stdout).toContain('--- "a/home/.claude/projects/evil\\033]0;pwned\\a\\033[2J/');
    expect(dry.stdout).toContain('would fix home/.claude/projects/evil\\x1b]0;pwned\\x07\\x1b[2J/');
    expect(dry.stdout).not.toMatch(/[\u0007\u001b]/);
    const applied = await run(['fix', '--yes', '--backup-dir', path.join(box.root, 'b\u001b[2J'), moved], { env: box.env, cwd: box.root });
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('fixed home/.claude/projects/evil\\x1b]0;pwned');
    expect(applied.stdout).not.toMatch(/[\u0007\u001b]/);
  });
});
