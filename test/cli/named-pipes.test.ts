/**
 * A named pipe where a file is expected. Opening one for reading waits for a
 * writer (for writing, for a reader) inside a system call that no signal
 * ends, Ctrl-C included: a run that opened one the usual way hung for good.
 * These run the built binary as a separate process with a deadline, since
 * an in-process hang would take the test runner with it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyDemo, sandbox, type Sandbox } from '../support/cli.js';
import { repositoryRoot } from '../support/tree.js';

const cli = path.join(repositoryRoot, 'dist', 'cli.js');
/** Far longer than any of these runs takes; a run still going then is hung. */
const DEADLINE_MS = 20_000;

let box: Sandbox;
let folder: string;
beforeEach(() => {
  box = sandbox();
  folder = copyDemo(box);
});
afterEach(() => box.cleanup());

function cclint(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: box.root, env: box.env, encoding: 'utf8', timeout: DEADLINE_MS, killSignal: 'SIGKILL' });
  // A run killed at the deadline has no status: it hung.
  expect({ args, hung: r.status === null }).toEqual({ args, hung: false });
  return r;
}

function pipeAt(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
  return file;
}

describe.skipIf(process.platform === 'win32')('a named pipe where cclint expects a file', () => {
  it('as the session of show, tree, export, rename, check and fix: refused at once (exit 2)', () => {
    const pipe = pipeAt(path.join(folder, '11111111-1111-4111-8111-111111111111.jsonl'));
    const shown = path.relative(box.root, pipe);
    for (const args of [['show'], ['tree'], ['export'], ['rename', '%', 'A title'], ['check'], ['fix', '--dry-run']]) {
      const r = cclint(...args.map((a) => (a === '%' ? shown : a)), ...(args.includes('%') ? [] : [shown]));
      expect({ args, status: r.status, stderr: r.stderr }).toEqual({ args, status: 2, stderr: `cclint: ${shown}: not a regular file or folder\n` });
    }
  });

  it('among the sessions of a folder: left out of check, which says what it says without it, and one note says why', () => {
    const without = cclint('check', '--format', 'json', folder);
    const pipe = pipeAt(path.join(folder, '11111111-1111-4111-8111-111111111111.jsonl'));
    const withPipe = cclint('check', '--format', 'json', folder);
    expect(withPipe.status).toBe(without.status);
    expect(withPipe.stdout).toBe(without.stdout);
    expect(withPipe.stderr).toBe(`${without.stderr}cclint: ${pipe}: not a regular file (a named pipe, a device or a socket); skipped\n`);
  });

  it('as a --cache entry: a corrupt entry (a warning, the same report), replaced by a file', () => {
    const plain = cclint('check', '--format', 'json', folder);
    cclint('check', '--format', 'json', '--cache', folder);
    const cache = path.join(box.cclintHome, 'cache');
    const [entry] = fs.readdirSync(cache).filter((n) => n.startsWith('check-'));
    fs.rmSync(path.join(cache, entry as string));
    pipeAt(path.join(cache, entry as string));
    // And one named like the entry of a folder that is gone, which pruning must look at.
    pipeAt(path.join(cache, `check-${'0'.repeat(40)}.bin`));
    const r = cclint('check', '--format', 'json', '--cache', folder);
    expect(r.stdout).toBe(plain.stdout);
    expect(r.stderr).toContain(`cache file ${path.join(cache, entry as string)} is corrupt (not a regular file); ignored and written again`);
    expect(fs.statSync(path.join(cache, entry as string)).isFile()).toBe(true);
    // A pipe has no header to read: pruning leaves it.
    expect(fs.statSync(path.join(cache, `check-${'0'.repeat(40)}.bin`)).isFIFO()).toBe(true);
  });

  it('as the audit log: fix refuses before writing anything, and restore --list says it cannot read it (exit 2)', () => {
    const session = path.join(folder, 'b2fe508c-5391-4967-ad16-83d569d4f396.jsonl');
    const before = fs.readFileSync(session);
    const log = pipeAt(path.join(box.cclintHome, 'audit.jsonl'));
    const r = cclint('fix', '--yes', '--force', session);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`cclint's audit log ${log} is not a regular file (a folder, a named pipe, a device or a socket); nothing was changed`);
    expect(fs.readFileSync(session).equals(before)).toBe(true);
    // No journal of a write begun.
    const inflight = path.join(box.cclintHome, 'inflight');
    expect(fs.existsSync(inflight) ? fs.readdirSync(inflight) : []).toEqual([]);
    const list = cclint('restore', '--list', '--format', 'json');
    expect({ status: list.status, stderr: list.stderr }).toEqual({ status: 2, stderr: `cclint: cannot read the audit log ${log}: not a regular file\n` });
  });

  it('where a fixed session was: restore refuses it as not a regular file, at once, and the list says so (exit 2)', () => {
    const session = path.join(folder, 'b2fe508c-5391-4967-ad16-83d569d4f396.jsonl');
    const fix = cclint('fix', '--yes', session);
    expect(fix.status).toBe(0);
    const id = /undo with: cclint restore (\S+)/.exec(fix.stdout)?.[1] as string;
    fs.rmSync(session);
    pipeAt(session);
    const r = cclint('restore', id);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^cclint: cannot restore \\S+: it is not a regular file now, which cclint does not write; the copy from before fix ${id} is \\S+\\n$`));
    const list = cclint('restore', '--list', '--format', 'json');
    expect((JSON.parse(list.stdout) as Array<{ state: string }>).map((row) => row.state)).toEqual(['replaced']);
  });

  it('as the --baseline or --config file, or a device there: not a regular file (exit 2)', () => {
    const baseline = pipeAt(path.join(box.root, 'baseline.json'));
    const r = cclint('check', '--baseline', baseline, folder);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 2, stderr: `cclint: --baseline ${baseline}: not a regular file\n` });
    // A device is read for ever: /dev/zero gives zeros without end.
    const zero = cclint('check', '--config', '/dev/zero', folder);
    expect({ status: zero.status, stderr: zero.stderr }).toEqual({ status: 2, stderr: 'cclint: cannot read config /dev/zero: not a regular file\n' });
    const random = cclint('check', '--baseline', '/dev/urandom', folder);
    expect({ status: random.status, stderr: random.stderr }).toEqual({ status: 2, stderr: 'cclint: --baseline /dev/urandom: not a regular file\n' });
  });
});
