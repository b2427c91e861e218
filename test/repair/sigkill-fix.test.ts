/**
 * SIGKILL at spread-out moments of a real `cclint fix --yes` (the built
 * executable) on a generated session: 40 kills from early in planning to
 * after the write. Each time the session must hold the old bytes, or the
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

function cclint(args: string[], env: NodeJS.ProcessEnv, cwd: string, killAfterMs?: number): Promise<Run> {
  const started = Date.now();
  const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      resolve({ code, killed: signal === 'SIGKILL', stdout, stderr, ms: Date.now() - started });
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

  it('runs to the end when not killed (the harness works)', async () => {
    const { dir, file, env } = setUp('control');
    const run = await cclint(['fix', '--yes', file], env, dir);
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    fixedHash = sha(fs.readFileSync(file));
    expect(fixedHash).not.toBe(before);
    controlMs = run.ms;
  }, 600_000);

  it(`${KILLS} kills: old bytes, or new bytes that the next run audits and restore undoes; no stray file`, async () => {
    expect(fixedHash).not.toBe('');
    const outcomes = { old: 0, new: 0, finished: 0 };
    for (let k = 0; k < KILLS; k++) {
      // Half spread from early in planning to the end of the control run,
      // half over its last part, where the backup, swap and audit happen.
      const half = KILLS / 2;
      const delay = Math.round(controlMs * (k < half ? 0.1 + (0.9 * k) / (half - 1) : 0.7 + (0.35 * (k - half)) / (half - 1)));
      const { dir, file, projectDir, env } = setUp(`kill-${k}`);
      const run = await cclint(['fix', '--yes', file], env, dir, delay);
      if (!run.killed) {
        expect(run.code, run.stderr).toBe(0);
        outcomes.finished++;
      }
      const hash = sha(fs.readFileSync(file));
      expect([before, fixedHash], `kill ${k} at ${delay} ms`).toContain(hash);
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
    process.stdout.write(`kill outcomes on ${MB} MB (control run ${controlMs} ms): ${JSON.stringify(outcomes)}\n`);
    // The kills were spread: some before the swap, some after.
    expect(outcomes.old, JSON.stringify(outcomes)).toBeGreaterThan(0);
    expect(outcomes.new, JSON.stringify(outcomes)).toBeGreaterThan(0);
  }, 3_600_000);
});
