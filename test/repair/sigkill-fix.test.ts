/**
 * SIGKILL at spread-out moments of a real `cclint fix --yes` (the built
 * executable) on a generated session: 40 kills, half spread over the whole
 * run, half over the commit (timed from its journal entry appearing, so they
 * land in the write whatever the machine's load). Each time the session must hold the old bytes, or the
 * new bytes, and the next run (`cclint restore <file>`) must complete the
 * journal and give the old bytes back when the fix had landed; no stray file
 * may remain beside the session, nor a journal entry, nor the backup of a fix
 * that did not land.
 *
 * The session is 4 MB in `npm test`; CCLINT_KILL_MB=150 runs the same test
 * on a 150 MB session (minutes, not part of the default run).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIG_SID, brokenSession } from '../support/big-session.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const cli = path.join(repo, 'dist', 'cli.js');
const MB = Number(process.env.CCLINT_KILL_MB ?? '4');
const KILLS = 40;

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let tmp: string;
let source: string;
let before: string;

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-killfix-')));
  source = path.join(tmp, 'session.jsonl');
  const { text } = brokenSession(MB * 1024 * 1024);
  fs.writeFileSync(source, text);
  before = sha(text);
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Run {
  readonly code: number | null;
  readonly killed: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/**
 * Runs cclint; with `kill`, SIGKILLs it `afterMs` after it starts, or, with
 * `afterJournal`, that long after its journal entry appears (the commit has
 * begun), so kills land in the write whatever the machine's load.
 */
function cclint(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  kill?: { afterMs: number; afterJournal?: boolean },
): Promise<Run & { commitMs?: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  const inflight = path.join(String(env.CCLINT_HOME), 'inflight');
  let journalAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const poll = setInterval(() => {
    if (journalAt !== undefined) return;
    try {
      if (fs.readdirSync(inflight).some((n) => n.endsWith('.json'))) {
        journalAt = Date.now();
        if (kill?.afterJournal === true) timer = setTimeout(() => child.kill('SIGKILL'), kill.afterMs);
      }
    } catch {
      // not there yet
    }
  }, 2);
  if (kill !== undefined && kill.afterJournal !== true) timer = setTimeout(() => child.kill('SIGKILL'), kill.afterMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      if (timer !== undefined) clearTimeout(timer);
      const ended = Date.now();
      resolve({ code, killed: signal === 'SIGKILL', stdout, stderr, ms: ended - started, commitMs: journalAt === undefined ? undefined : ended - journalAt });
    });
  });
}

function setUp(name: string): { dir: string; file: string; projectDir: string; env: NodeJS.ProcessEnv } {
  const dir = path.join(tmp, name);
  const config = path.join(dir, 'claude');
  const projectDir = path.join(config, 'projects', '-tmp-app');
  const file = path.join(projectDir, `${BIG_SID}.jsonl`);
  fs.mkdirSync(projectDir, { recursive: true });
  fs.copyFileSync(source, file);
  const settled = new Date(Date.now() - 3_600_000);
  fs.utimesSync(file, settled, settled);
  return { dir, file, projectDir, env: { HOME: dir, CLAUDE_CONFIG_DIR: config, CCLINT_HOME: path.join(dir, 'state'), PATH: process.env.PATH ?? '' } };
}

function bakFiles(dir: string): string[] {
  const backups = path.join(dir, 'state', 'backups');
  return fs.existsSync(backups) ? fs.readdirSync(backups, { recursive: true }).map(String).filter((n) => n.endsWith('.bak')) : [];
}

describe(`SIGKILL during cclint fix --yes of a ${MB} MB session`, () => {
  let fixedHash = '';
  let controlMs = 0;
  let commitMs = 0;

  it('runs to the end when not killed (the harness works)', async () => {
    const { dir, file, env } = setUp('control');
    const run = await cclint(['fix', '--yes', file], env, dir);
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    fixedHash = sha(fs.readFileSync(file));
    expect(fixedHash).not.toBe(before);
    controlMs = run.ms;
    commitMs = run.commitMs ?? 0;
    expect(commitMs).toBeGreaterThan(0);
  }, 600_000);

  it(`${KILLS} kills: old bytes, or new bytes that the next run audits and restore undoes; no stray file`, async () => {
    expect(fixedHash).not.toBe('');
    const outcomes = { old: 0, new: 0, finished: 0 };
    for (let k = 0; k < KILLS; k++) {
      // Half spread over the whole run (from early in planning on), half over
      // the commit (from its journal entry to past the control run's end).
      const half = KILLS / 2;
      const inCommit = k >= half;
      const delay = inCommit ? Math.round((commitMs * 1.2 * (k - half)) / (half - 1)) : Math.round(controlMs * (0.1 + (0.9 * k) / (half - 1)));
      const { dir, file, projectDir, env } = setUp(`kill-${k}`);
      const run = await cclint(['fix', '--yes', file], env, dir, { afterMs: delay, afterJournal: inCommit });
      if (!run.killed) {
        expect(run.code, run.stderr).toBe(0);
        outcomes.finished++;
      }
      const hash = sha(fs.readFileSync(file));
      expect([before, fixedHash], `kill ${k} at ${delay} ms${inCommit ? ' into the commit' : ''}`).toContain(hash);
      const landed = hash === fixedHash;
      if (landed) outcomes.new++;
      else outcomes.old++;

      // The next run.
      const next = await cclint(['restore', file], env, dir);
      if (landed) {
        expect(next.code, `kill ${k}: ${next.stderr}`).toBe(0);
        expect(next.stdout).toMatch(/^restored /);
      } else {
        expect(next.stdout).not.toMatch(/^restored /);
      }
      expect(sha(fs.readFileSync(file)), `kill ${k}`).toBe(before);
      expect(fs.readdirSync(projectDir), `kill ${k}`).toEqual([`${BIG_SID}.jsonl`]);
      const inflight = path.join(dir, 'state', 'inflight');
      expect(fs.existsSync(inflight) ? fs.readdirSync(inflight) : [], `kill ${k}`).toEqual([]);
      // A fix that landed has its backup (and the restore's); one that did not, none.
      expect(bakFiles(dir), `kill ${k}`).toHaveLength(landed ? 2 : 0);
      fs.rmSync(dir, { recursive: true, force: true });
    }
    process.stdout.write(`kill outcomes on ${MB} MB (control run ${controlMs} ms, commit ${commitMs} ms): ${JSON.stringify(outcomes)}\n`);
    // The kills were spread: some before the swap, some after.
    expect(outcomes.old, JSON.stringify(outcomes)).toBeGreaterThan(0);
    expect(outcomes.new, JSON.stringify(outcomes)).toBeGreaterThan(0);
  }, 3_600_000);
});
