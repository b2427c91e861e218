/**
 * Two cclint writers on one session at once (two `fix --yes --force` runs,
 * say a cron job and a person), while a third process appends rows the way
 * Claude Code does: the built executable, real processes. Each writer
 * checked the bytes it planned from through its own open handle, which still
 * showed the old file after the other one swapped in the new; the second
 * renamed over the first's file, and rows appended to it in between were
 * lost (4 runs in 40), with both runs reporting success; and a run that said
 * "nothing was written" could still leave an audit entry whose backup it had
 * removed (10 in 10). Now one writer per file holds its write lock
 * (journal.ts); the other refuses, or finds the file changed, and writes
 * nothing, not even an audit line.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_SID, brokenSession } from '../support/big-session.js';
import { liveRows, runCli, runFolder, startAppender } from './live-appender.js';

const RUNS = 12;

let tmp: string;
let session: ReturnType<typeof brokenSession>;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-two-writers-')));
  session = brokenSession(512 * 1024);
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('two fix --yes --force runs at once on a session another process appends to', () => {
  it.each(Array.from({ length: RUNS }, (_, i) => i))('run %i: one writes, the other writes nothing; no appended row lost or doubled; every audit entry has its backup', async (i) => {
    const { dir, projectDir, file, state, env } = runFolder(tmp, i, BIG_SID, session.text);

    const appender = await startAppender(file, session.last, BIG_SID, i % 3);

    const runs = await Promise.all([runCli(['fix', '--yes', '--force', file], env, dir), runCli(['fix', '--yes', '--force', file], env, dir)]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const appended = await appender.stop();
    expect(appended).toBeGreaterThan(0);

    // Every appended row, once, in order.
    const text = fs.readFileSync(file, 'utf8');
    expect(liveRows(text)).toEqual(Array.from({ length: appended }, (_, n) => n));
    // One run fixed; the other wrote nothing (it found the file locked, or changed since it planned).
    const fixed = runs.filter((r) => /^fixed /m.test(r.stdout));
    expect(fixed.length, runs.map((r) => r.stdout + r.stderr).join('\n---\n')).toBe(1);
    // The other refused (locked out, or the file changed since it planned), or, started
    // late on a loaded machine, planned from the fixed file and found nothing to do.
    const other = runs.find((r) => !/^fixed /m.test(r.stdout));
    const said = `${other?.stdout ?? ''}${other?.stderr ?? ''}`;
    if (other?.code === 0) expect(said).toMatch(/^applied 0 fix\(es\) in 0 of 1 file\(s\)/m);
    else {
      expect(other?.code).toBe(2);
      expect(said).toMatch(/is writing .*nothing was written|changed after the fix was planned.*nothing was written/);
    }
    // The audit log holds the one write, and its backup is there.
    const entries = fs
      .readFileSync(path.join(state, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; backup: string });
    expect(entries.map((e) => e.id), runs.map((r) => r.stdout + r.stderr).join('\n---\n')).toEqual([/undo with: cclint restore (\S+)/.exec(fixed[0]?.stdout ?? '')?.[1]]);
    expect(fs.existsSync(entries[0]?.backup ?? '')).toBe(true);
    // Nothing left behind: no lock, no journal, no stray file beside the session.
    expect(fs.readdirSync(path.join(state, 'inflight'))).toEqual([]);
    expect(fs.readdirSync(projectDir)).toEqual([`${BIG_SID}.jsonl`]);
  }, 120_000);
});

describe('the write lock', () => {
  /** A session to fix, its state folder, and the path of its write lock. */
  function setUp(name: string): { file: string; env: NodeJS.ProcessEnv; dir: string; lock: string } {
    const dir = path.join(tmp, name);
    const config = path.join(dir, 'claude');
    const file = path.join(config, 'projects', '-tmp-app', `${BIG_SID}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, session.text);
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(file, old, old);
    const state = path.join(dir, 'state');
    const lock = path.join(state, 'inflight', `${createHash('sha256').update(file).digest('hex').slice(0, 32)}.lock`);
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    return { file, env: { HOME: dir, CLAUDE_CONFIG_DIR: config, CCLINT_HOME: state, PATH: process.env.PATH ?? '' }, dir, lock };
  }

  it('held by a running process: fix refuses with its pid and writes nothing', async () => {
    const { file, env, dir, lock } = setUp('held');
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, file }));
    const r = await runCli(['fix', '--yes', file], env, dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`another cclint (pid ${process.pid}) is writing`);
    expect(fs.readFileSync(file).equals(session.text)).toBe(true);
    expect(fs.existsSync(lock)).toBe(true); // not the refusing run's to remove
  });

  it('left by a run that is gone (killed): taken over, the fix is written, and the lock is gone after', async () => {
    const { file, env, dir, lock } = setUp('stale');
    const gone = spawn(process.execPath, ['-e', '0']);
    const pid = gone.pid as number;
    await new Promise((resolve) => gone.on('exit', resolve));
    fs.writeFileSync(lock, JSON.stringify({ pid, file }));
    const r = await runCli(['fix', '--yes', file], env, dir);
    expect(r.stdout).toMatch(/^fixed /m);
    expect(fs.readFileSync(file).equals(session.text)).toBe(false);
    expect(fs.existsSync(lock)).toBe(false);
  });
});
