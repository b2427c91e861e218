/**
 * SIGKILL at chosen steps of a commit of a 4 MB transcript, through the real
 * node port in a child process: before the commit, while the temp file is
 * written, right after the rename and while lines are carried. Whenever the
 * kill lands, the file is byte-exactly the old or the new content; the only
 * thing it may leave beside the session is the writer's hidden temp file
 * (never a `.jsonl` name Claude Code would list); the next run's recovery
 * removes it, audits a fix that landed (and restore then gives the old
 * bytes back), and removes the backup of one that did not.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeFs } from '../../src/repair/fs-port.js';
import { isWriterTempName } from '../../src/repair/journal.js';
import { readAuditLog, restore } from '../../src/repair/restore.js';
import { recoverJournals } from '../../src/repair/write.js';
import { SID } from './fixture.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const SIZE = 4 * 1024 * 1024;

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let tmp: string;
let before: Buffer;
let after: Buffer;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-sigkill-')));
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < SIZE; i++) {
    const line = `{"parentUuid":null,"type":"user","n":${i},"sessionId":"${SID}","message":{"role":"user","content":"${'x'.repeat(900)}"}}`;
    lines.push(line);
    size += line.length + 1;
  }
  before = Buffer.from(`${lines.join('\n')}\n`);
  lines[0] = (lines[0] ?? '').replace('"n":0', '"n":0,"fixed":true');
  after = Buffer.from(`${lines.join('\n')}\n{"type":"custom-title","customTitle":"fixed","sessionId":"${SID}"}\n`);
  fs.writeFileSync(path.join(tmp, 'after.bin'), after);
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Outcome {
  readonly killed: boolean;
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the child; kills it `delayMs` after it prints `event` (never, for event undefined). */
function runChild(dir: string, event: 'ready' | 'writing' | 'written' | undefined, delayMs: number): Promise<Outcome> {
  const home = path.join(dir, 'state');
  const config = path.join(dir, 'claude');
  const target = path.join(config, 'projects', '-tmp-app', `${SID}.jsonl`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      path.join(here, 'ts-register.mjs'),
      path.join(here, 'sigkill-child.ts'),
      target,
      path.join(tmp, 'after.bin'),
      home,
      config,
      path.join(config, 'projects'),
    ],
    { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  let armed = false;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (!armed && event !== undefined && stdout.split('\n').includes(event)) {
      armed = true;
      const kill = (): void => void child.kill('SIGKILL');
      if (delayMs === 0) kill();
      else setTimeout(kill, delayMs);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ killed: signal === 'SIGKILL', code, stdout, stderr }));
  });
}

function setUp(name: string): { dir: string; target: string; projectDir: string } {
  const dir = path.join(tmp, name);
  const projectDir = path.join(dir, 'claude', 'projects', '-tmp-app');
  const target = path.join(projectDir, `${SID}.jsonl`);
  fs.mkdirSync(projectDir, { recursive: true });
  fs.writeFileSync(target, before, { mode: 0o600 });
  const settled = new Date(Date.now() - 3_600_000);
  fs.utimesSync(target, settled, settled);
  return { dir, target, projectDir };
}

function check(outcome: Outcome, dir: string, target: string, projectDir: string): 'old' | 'new' {
  if (!outcome.killed) expect(outcome.code, outcome.stderr).toBe(0);
  const hash = sha(fs.readFileSync(target));
  expect([sha(before), sha(after)]).toContain(hash);
  const state = hash === sha(after) ? 'new' : 'old';

  if (!outcome.killed) {
    expect(state).toBe('new');
    expect(outcome.stdout).toMatch(/^done /m);
  }

  // At most a temp file of the writer remains beside the session: hidden, not
  // a .jsonl name, so neither Claude Code nor cclint lists it...
  const strays = fs.readdirSync(projectDir).filter((name) => name !== `${SID}.jsonl`);
  for (const name of strays) {
    expect(isWriterTempName(target, name), name).toBe(true);
    expect(name.endsWith('.jsonl')).toBe(false);
  }
  // ...and the next run removes it, and audits a fix that landed.
  const env = { HOME: dir, CCLINT_HOME: path.join(dir, 'state'), CLAUDE_CONFIG_DIR: path.join(dir, 'claude') };
  recoverJournals({ fs: nodeFs(), env });
  expect(fs.readdirSync(projectDir)).toEqual([`${SID}.jsonl`]);
  const inflight = path.join(dir, 'state', 'inflight');
  expect(fs.existsSync(inflight) ? fs.readdirSync(inflight) : []).toEqual([]);
  const audit = readAuditLog(nodeFs(), path.join(dir, 'state', 'audit.jsonl'));
  expect(audit).toHaveLength(state === 'new' ? 1 : 0);
  if (state === 'new') {
    // The fix is undoable: restore gives the old bytes back.
    restore(target, { fs: nodeFs(), env, cwd: dir, projectsRoot: path.join(dir, 'claude', 'projects'), force: true });
    expect(sha(fs.readFileSync(target))).toBe(sha(before));
  } else {
    // A fix that did not land leaves no backup behind either.
    const backups = path.join(dir, 'state', 'backups');
    const left = fs.existsSync(backups) ? fs.readdirSync(backups, { recursive: true }).filter((n) => String(n).endsWith('.bak')) : [];
    expect(left).toEqual([]);
  }
  return state;
}

describe('SIGKILL while committing a 4 MB plan', () => {
  it('completes when not killed (the harness works)', async () => {
    const { dir, target, projectDir } = setUp('control');
    const outcome = await runChild(dir, undefined, 0);
    expect(check(outcome, dir, target, projectDir)).toBe('new');
  }, 120_000);

  it.each([
    ['ready', 5],
    ['ready', 50],
    ['writing', 0],
    ['writing', 5],
    ['writing', 20],
    ['writing', 50],
    ['writing', 100],
    ['written', 0],
    ['written', 10],
    ['written', 40],
  ] as const)('killed at "%s" + %i ms: old or new bytes, no stray file after recovery', async (event, delay) => {
    const { dir, target, projectDir } = setUp(`${event}-${delay}`);
    const outcome = await runChild(dir, event, delay);
    check(outcome, dir, target, projectDir);
  }, 120_000);
});

/**
 * The window between the rename and the end of the carry: a live Claude Code
 * whose append was opened before the rename writes into the old inode; the
 * writer is killed before it can carry that line. The old inode's second
 * name (kept by the writer) lets the next run's recovery append the line.
 */
describe('SIGKILL right after a late line lands in the replaced inode', () => {
  it.each([0, 5, 20, 60])('keeps the line (written %i ms after the rename, the writer killed at once)', async (delay) => {
    const { dir, target, projectDir } = setUp(`late-line-${delay}`);
    // An appender that opened the file before the swap, as Claude Code's open-append-close can.
    const appender = fs.openSync(target, 'a');
    const late = Buffer.from(`{"type":"user","late":${delay},"sessionId":"${SID}","message":{"role":"user","content":"late"}}\n`);
    const home = path.join(dir, 'state');
    const config = path.join(dir, 'claude');
    const child = spawn(
      process.execPath,
      ['--import', path.join(here, 'ts-register.mjs'), path.join(here, 'sigkill-child.ts'), target, path.join(tmp, 'after.bin'), home, config, path.join(config, 'projects')],
      { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let wrote = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!wrote && stdout.split('\n').includes('written')) {
        wrote = true;
        const write = (): void => {
          fs.writeSync(appender, late);
          child.kill('SIGKILL');
        };
        if (delay === 0) write();
        else setTimeout(write, delay);
      }
    });
    const killed = await new Promise<boolean>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (_code, signal) => resolve(signal === 'SIGKILL'));
    });
    fs.closeSync(appender);
    expect(wrote, stdout).toBe(true);

    const env = { HOME: dir, CCLINT_HOME: home, CLAUDE_CONFIG_DIR: config };
    recoverJournals({ fs: nodeFs(), env });
    // The new bytes, then the late line, once; nothing beside the session; audited.
    expect(sha(fs.readFileSync(target)), `killed: ${killed}`).toBe(sha(Buffer.concat([after, late])));
    expect(fs.readdirSync(projectDir)).toEqual([`${SID}.jsonl`]);
    expect(fs.existsSync(path.join(home, 'inflight')) ? fs.readdirSync(path.join(home, 'inflight')) : []).toEqual([]);
    expect(readAuditLog(nodeFs(), path.join(home, 'audit.jsonl'))).toHaveLength(1);
  }, 120_000);
});
