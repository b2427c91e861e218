import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Sandbox, assistant, run, sandbox, sid, user } from './fixture.js';
import { type LoadedFrom, renamePlan } from '../../src/commands/rename.js';
import { SessionIndex } from '../../src/core/session-index.js';
import { corpusFiles } from '../support/corpus.js';
import { classifyPath } from '../../src/core/discovery.js';
import { type ByteSource, bufferSource, fileSource } from '../../src/core/reader.js';
import { indexFile } from '../../src/engine/linter.js';
import type { Io } from '../../src/io.js';

let box: Sandbox;
let file: string;
const OLD = new Date(Date.UTC(2026, 0, 5, 4, 0, 0));
beforeEach(() => {
  box = sandbox();
  file = box.write(`${sid(1)}.jsonl`, [user(1, null, 'first prompt'), assistant(2, 1, 'answer')]);
  fs.utimesSync(file, OLD, OLD);
});
afterEach(() => box.cleanup());

const REL = `claude/projects/-home-u-proj/${sid(1)}.jsonl`;

async function titles(): Promise<string[]> {
  const r = await run(['sessions', '--format', 'json', 'claude/projects'], box);
  return (JSON.parse(r.stdout) as Array<{ title: string }>).map((s) => s.title);
}

describe('cclint rename', () => {
  it('appends the custom-title row Claude Code writes, with a backup and an audit line; sessions shows it; restore takes it back', async () => {
    const original = fs.readFileSync(file);
    expect(await titles()).toEqual(['first prompt']);
    const r = await run(['rename', sid(1), '  Login   form: validation '], box);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const audit = fs.readFileSync(path.join(box.env.CCLINT_HOME as string, 'audit.jsonl'), 'utf8').trim().split('\n');
    expect(audit).toHaveLength(1);
    const entry = JSON.parse(audit[0] as string) as { id: string; backup: string; fixes: Array<{ ruleId: string; edits: Array<{ edit: { kind: string; line: number } }> }> };
    expect(r.stdout).toBe(`${REL}: titled "Login form: validation"\n  backup ${entry.backup}\n  undo with: cclint restore ${entry.id}\n`);
    expect(entry.fixes.map((f) => [f.ruleId, f.edits.map((e) => `${e.edit.kind}@${e.edit.line}`)])).toEqual([['rename', ['insertAfter@2']]]);
    expect(fs.readFileSync(entry.backup)).toEqual(original);
    const after = fs.readFileSync(file, 'utf8');
    expect(after.startsWith(original.toString('utf8'))).toBe(true);
    expect(after.slice(original.length)).toBe(`{"type":"custom-title","customTitle":"Login form: validation","sessionId":"${sid(1)}"}\n`);
    expect(fs.statSync(file).mtimeMs).toBe(OLD.getTime());
    expect(await titles()).toEqual(['Login form: validation']);
    const check = await run(['check', '--format', 'json', REL], box);
    expect((JSON.parse(check.stdout) as { summary: { errorCount: number; warningCount: number } }).summary).toMatchObject({ errorCount: 0, warningCount: 0 });

    const again = await run(['rename', REL, 'Login form: validation'], box);
    expect(again).toEqual({ code: 0, stdout: `${REL} is already titled "Login form: validation"; nothing to do\n`, stderr: '' });

    const second = await run(['rename', REL, 'Second name'], box);
    expect(second.stdout).toContain('titled "Second name" (was "Login form: validation")');
    expect(await titles()).toEqual(['Second name']);

    const secondId = /restore (\S+)\n$/.exec(second.stdout)?.[1] as string;
    const undone = await run(['restore', secondId], box);
    expect(undone.code).toBe(0);
    // Named as what it was: a rename, not a fix.
    expect(undone.stdout).toMatch(new RegExp(`^restored \\S+ to its content before rename ${secondId} `));
    expect(await titles()).toEqual(['Login form: validation']);
    const list = JSON.parse((await run(['restore', '--list', '--format', 'json'], box)).stdout) as Array<{ id: string; kind: string }>;
    expect(list.map((e) => [e.id, e.kind])).toEqual([
      [expect.any(String), 'restore'],
      [secondId, 'rename'],
      [entry.id, 'rename'],
    ]);
    expect((await run(['restore', entry.id], box)).code).toBe(0);
    expect(fs.readFileSync(file)).toEqual(original);
    expect(await titles()).toEqual(['first prompt']);
  });

  /** rename then restore of a transcript owned by uid:gid, mode 0600: the owner, group and mode stay. */
  async function renameAndRestoreKeepOwner(uid: number, gid: number): Promise<void> {
    const original = fs.readFileSync(file);
    fs.chownSync(file, uid, gid);
    fs.chmodSync(file, 0o600);
    fs.utimesSync(file, OLD, OLD);
    const owner = (): [number, number, number] => {
      const st = fs.statSync(file);
      return [st.uid, st.gid, st.mode & 0o7777];
    };
    const r = await run(['rename', REL, 'Owned'], box);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(file, 'utf8')).toContain('"customTitle":"Owned"');
    expect(owner()).toEqual([uid, gid, 0o600]);
    const id = /restore (\S+)\n$/.exec(r.stdout)?.[1] as string;
    expect((await run(['restore', id], box)).code).toBe(0);
    expect(fs.readFileSync(file)).toEqual(original);
    expect(owner()).toEqual([uid, gid, 0o600]);
  }

  it('keeps the owner, group and mode of a transcript the user running it owns, and so does its restore', async () => {
    await renameAndRestoreKeepOwner(process.getuid?.() ?? 0, process.getgid?.() ?? 0);
  });

  // Only root can give the transcript to another user first.
  it.skipIf(process.getuid?.() !== 0)('sudo: leaves a transcript owned by its user (1234:1234, 0600), not by root, and so does its restore', async () => {
    await renameAndRestoreKeepOwner(1234, 1234);
  });

  it('names --audit-log in the undo command when one was given', async () => {
    const log = path.join(box.dir, 'state dir', 'audit.jsonl');
    const r = await run(['rename', '--audit-log', log, REL, 'Named'], box);
    expect(r.code).toBe(0);
    const id = (JSON.parse(fs.readFileSync(log, 'utf8').trim()) as { id: string }).id;
    expect(r.stdout.endsWith(`  undo with: cclint restore ${id} --audit-log '${log}'\n`)).toBe(true);
  });

  it('the report shows the title', async () => {
    await run(['rename', REL, 'Named <b>session</b>'], box);
    const out = path.join(box.dir, 'r.html');
    expect((await run(['report', 'claude/projects', '-o', out], box)).code).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toContain('<h2>Named &lt;b&gt;session&lt;/b&gt;</h2>');
  });

  it('refuses a live session unless --force, a blank title, a subagent transcript and a torn last line (exit 2, file untouched)', async () => {
    const original = fs.readFileSync(file);
    const now = new Date();
    fs.utimesSync(file, now, now);
    const live = await run(['rename', REL, 'x'], box);
    expect(live.code).toBe(2);
    expect(fs.readFileSync(file)).toEqual(original);
    expect((await run(['rename', '--force', REL, 'x'], box)).code).toBe(0);
    expect((await run(['rename', REL, '   '], box)).code).toBe(2);
    const agent = box.write(`${sid(1)}/subagents/agent-a1.jsonl`, [user(10, null, 'task', { sidechain: true })]);
    expect((await run(['rename', agent, 'x'], box)).code).toBe(2);
    const torn = box.write(`${sid(2)}.jsonl`, [user(1, null, 'p', { session: sid(2) })]);
    fs.writeFileSync(torn, fs.readFileSync(torn, 'utf8').trimEnd());
    fs.utimesSync(torn, OLD, OLD);
    const r = await run(['rename', torn, 'x'], box);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the last line is not terminated');
  });
});

describe('cclint rename of a live session', () => {
  it('is refused before the file is read: a live file that is no transcript is refused as live, not judged', async () => {
    const text = box.write(`${sid(3)}.jsonl`, []);
    fs.writeFileSync(text, 'just some notes\nnot a transcript at all\n');
    const now = new Date();
    fs.utimesSync(text, now, now);
    const live = await run(['rename', text, 'x'], box);
    expect(live.code).toBe(2);
    expect(live.stderr).toMatch(/^cclint: refusing to write \S+\.jsonl: it changed \d+ s ago and may still be open in Claude Code; .* or pass --force\n$/);
    // Settled, it is read and judged.
    fs.utimesSync(text, OLD, OLD);
    const settled = await run(['rename', text, 'x'], box);
    expect(settled.code).toBe(2);
    expect(settled.stderr).toContain('transcript');
    expect(settled.stderr).not.toContain('refusing to write');
  });
});

describe('rename plan', () => {
  it('reads the session once for the new text\'s index and both digests', () => {
    const bytes = fs.readFileSync(file);
    let read = 0;
    const source: ByteSource = {
      size: bytes.length,
      read(target, targetOffset, length, position) {
        const n = bufferSource(bytes).read(target, targetOffset, length, position);
        read += n;
        return n;
      },
      close: () => undefined,
    };
    const quiet = { write: () => undefined, isTTY: false };
    const io: Io = { stdout: quiet, stderr: quiet, stdinIsTTY: false, env: box.env, cwd: box.dir };
    const index = indexFile(classifyPath(file, box.dir));
    const plan = renamePlan(index, source, 'A title', io);
    // One byte to see that the file ends a line, then every byte once.
    expect(read).toBe(bytes.length + 1);
    expect(plan.sha256Before).toBe(createHash('sha256').update(bytes).digest('hex'));
    const row = `{"type":"custom-title","customTitle":"A title","sessionId":"${sid(1)}"}\n`;
    expect(plan.sha256After).toBe(createHash('sha256').update(Buffer.concat([bytes, Buffer.from(row)])).digest('hex'));
  });

  /** The plan of `target`, and where the build of its titled text started reading (0: from the start). */
  const planOf = (target: string, loaded?: LoadedFrom): { plan: ReturnType<typeof renamePlan>; start: number } => {
    const quiet = { write: () => undefined, isTTY: false };
    const io: Io = { stdout: quiet, stderr: quiet, stdinIsTTY: false, env: box.env, cwd: box.dir };
    const index = indexFile(classifyPath(target, box.dir));
    const built = vi.spyOn(SessionIndex, 'build');
    const source = fileSource(target);
    try {
      const plan = renamePlan(index, source, 'A title', io, loaded);
      return { plan, start: built.mock.calls.at(-1)?.[3]?.stats.byteLength ?? 0 };
    } finally {
      source.close();
      built.mockRestore();
    }
  };

  it('continues the loaded index with the new row when the file is settled and unchanged, and plans what a read from the start plans (every bundled corpus session)', () => {
    const sessions = corpusFiles()
      .map((f) => f.absolute)
      .filter((f) => fs.readFileSync(f).at(-1) === 0x0a && /^[0-9a-f-]{36}\.jsonl$/.test(path.basename(f)));
    expect(sessions.length).toBeGreaterThan(5);
    for (const original of sessions) {
      const copy = box.write(path.basename(original), []);
      fs.copyFileSync(original, copy);
      const seen = fs.statSync(copy, { bigint: true });
      const scratch = planOf(copy);
      const continued = planOf(copy, { seen, racyMs: 0 });
      expect({ original, start: scratch.start }).toEqual({ original, start: 0 });
      expect({ original, start: continued.start }).toEqual({ original, start: fs.statSync(copy).size });
      expect(continued.plan).toEqual(scratch.plan);
    }
  });

  it('reads the file from the start when it changed after it was looked at, or had changed just before', () => {
    const seen = fs.statSync(file, { bigint: true });
    // Changed just before it was looked at (as a live session is): its times cannot vouch for its bytes.
    expect(planOf(file, { seen, racyMs: 60_000 }).start).toBe(0);
    // Changed after it was looked at: the plan is of the bytes as they are now.
    fs.appendFileSync(file, `${assistant(3, 2, 'later')}\n`);
    const changed = planOf(file, { seen, racyMs: 0 });
    expect(changed.start).toBe(0);
    expect(changed.plan).toEqual(planOf(file).plan);
    expect(changed.plan.sizeBefore).toBe(fs.statSync(file).size);
  });
});
