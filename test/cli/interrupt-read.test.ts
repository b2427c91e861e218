/**
 * Ctrl-C (SIGINT) or SIGTERM during a command that writes no transcript:
 * the process ends at once, by the signal, even while it is inside the one
 * long synchronous read of a big session (a handler would run only after
 * it, seconds later; the signal was then lost and the run went on to exit
 * 0); and during `rename` until its one write. The built binary, as a
 * separate process: a signal sent in-process would reach the test runner.
 * `test/repair/interrupt.test.ts` covers the commands that write (exit 130,
 * every file old or new).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeBrokenSession } from '../support/big-session.js';
import { sandbox, type Sandbox } from '../support/cli.js';
import { repositoryRoot } from '../support/tree.js';

const cli = path.join(repositoryRoot, 'dist', 'cli.js');
/** Sent this long after the start: well inside the read of the session (which takes seconds), after Node's start. */
const SIGNAL_AFTER_MS = 400;

let box: Sandbox;
let session: string;
beforeAll(() => {
  box = sandbox();
  const folder = path.join(box.configDir, 'projects', '-home-dev-big');
  fs.mkdirSync(folder, { recursive: true });
  session = path.join(folder, '5e551011-0000-4000-8000-00000000b16e.jsonl');
  writeBrokenSession(session, 120 * 1024 * 1024);
  // Settled, as a session rename reads is (a live one is refused before it is read).
  const old = new Date(Date.now() - 3_600_000);
  fs.utimesSync(session, old, old);
});
afterAll(() => box.cleanup());

/** How the run ended, and how long after the signal. */
function interrupted(args: string[], signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null; afterSignalMs: number }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: box.root, env: box.env, stdio: 'ignore' });
    let sentAt = 0;
    const timer = setTimeout(() => {
      sentAt = Date.now();
      child.kill(signal);
    }, SIGNAL_AFTER_MS);
    child.on('exit', (code, by) => {
      clearTimeout(timer);
      resolve({ code, signal: by, afterSignalMs: sentAt === 0 ? -1 : Date.now() - sentAt });
    });
  });
}

describe.skipIf(process.platform === 'win32')('Ctrl-C during a command that writes no transcript', () => {
  for (const [args, signal] of [
    [['check', '--format', 'json'], 'SIGINT'],
    [['show'], 'SIGINT'],
    [['tree'], 'SIGTERM'],
    [['fix', '--dry-run'], 'SIGINT'],
  ] as const) {
    it(`${args.join(' ')}: ${signal} ends it at once, by the signal`, async () => {
      const r = await interrupted([...args, session], signal);
      expect({ code: r.code, signal: r.signal }).toEqual({ code: null, signal });
      // Not after the read of the session (seconds): within what killing a process takes.
      expect(r.afterSignalMs).toBeLessThan(1500);
    });
  }

  it('rename, while it reads and plans (before its one write): SIGINT ends it at once; the session is untouched, nothing backed up', async () => {
    const before = fs.statSync(session);
    const r = await interrupted(['rename', session, 'A title'], 'SIGINT');
    expect({ code: r.code, signal: r.signal }).toEqual({ code: null, signal: 'SIGINT' });
    expect(r.afterSignalMs).toBeLessThan(1500);
    const after = fs.statSync(session);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    expect(fs.existsSync(path.join(box.cclintHome, 'backups'))).toBe(false);
  });
});
