/**
 * Append safety against a real concurrent appender: while `cclint fix --yes
 * --force` (the built executable, a real process) repairs a session, another
 * process appends chained rows to it the way Claude Code does. Whatever the
 * timing, every appended row must be in the file afterwards, once, in the
 * order it was written, with the fix applied (or, when an appended row
 * referred to what the fix changed, the old bytes with every row), and the
 * fix's `restore` must give back the old bytes followed by the appended rows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_SID, brokenSession } from '../support/big-session.js';
import { liveRows, runCli, runFolder, startAppender } from './live-appender.js';

const RUNS = 16;

let tmp: string;
let session: ReturnType<typeof brokenSession>;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-append-')));
  session = brokenSession(1024 * 1024);
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('fix --yes --force while another process appends to the session', () => {
  it.each(Array.from({ length: RUNS }, (_, i) => i))('run %i: no appended row lost, order kept, restore gives the old bytes back', async (i) => {
    const { dir, projectDir, file, env } = runFolder(tmp, i, BIG_SID, session.text);

    const appender = await startAppender(file, session.last, BIG_SID, i % 3);

    const fix = await runCli(['fix', '--yes', '--force', file], env, dir);
    // Let it append a little longer after the fix, then stop it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const appended = await appender.stop();
    expect(appended).toBeGreaterThan(0);

    const after = fs.readFileSync(file);
    const text = after.toString();
    // Every appended row, once, in order.
    expect(liveRows(text)).toEqual(Array.from({ length: appended }, (_, n) => n));
    // The file is the fixed bytes (or, after a put-back, the old ones) followed by the rows.
    const rowsStart = text.indexOf('"live":0}') === -1 ? after.length : text.lastIndexOf('\n', text.indexOf('"live":0}')) + 1;
    const head = after.subarray(0, rowsStart);
    expect(fix.stderr).toBe('');
    expect(fix.code, fix.stdout).toBe(0);
    expect(head.equals(session.text)).toBe(false); // the fix was applied
    expect(head.length).toBe(session.text.length);
    // No stray file beside the session.
    expect(fs.readdirSync(projectDir)).toEqual([`${BIG_SID}.jsonl`]);

    // Undo: the old bytes, then every appended row.
    const id = /undo with: cclint restore (\S+)/.exec(fix.stdout)?.[1] ?? '';
    const undo = await runCli(['restore', id, '--force'], env, dir);
    expect(undo.code, undo.stderr).toBe(0);
    const restored = fs.readFileSync(file);
    expect(restored.subarray(0, session.text.length).equals(session.text)).toBe(true);
    expect(restored.subarray(session.text.length).equals(after.subarray(rowsStart))).toBe(true);
  }, 120_000);
});
