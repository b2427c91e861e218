/**
 * Ctrl-C (SIGINT) at spread-out moments of a real `cclint fix --yes` (the
 * built executable), on one session and on a folder of sessions: the run
 * exits 130 (or 0 when it had finished), every file holds its old or its
 * new bytes, the files that were fixed are the first ones of the run's order
 * with one audit line each (nothing after the interrupted file is touched),
 * and no temp file is left.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenSession } from '../support/big-session.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.join(path.resolve(here, '..', '..'), 'dist', 'cli.js');
const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

let tmp: string;
const sessions: Array<{ sid: string; text: Buffer }> = [];

beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-interrupt-')));
  for (let i = 0; i < 5; i++) {
    const sid = randomUUID();
    sessions.push({ sid, text: brokenSession((i === 0 ? 4 : 1) * 1024 * 1024, 900, sid).text });
  }
});

afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

function setUp(name: string, count: number): { dir: string; projectDir: string; env: NodeJS.ProcessEnv; files: string[] } {
  const dir = path.join(tmp, name);
  const config = path.join(dir, 'claude');
  const projectDir = path.join(config, 'projects', '-tmp-app');
  fs.mkdirSync(projectDir, { recursive: true });
  const settled = new Date(Date.now() - 3_600_000);
  const files = sessions.slice(0, count).map(({ sid, text }) => {
    const file = path.join(projectDir, `${sid}.jsonl`);
    fs.writeFileSync(file, text);
    fs.utimesSync(file, settled, settled);
    return file;
  });
  return { dir, projectDir, files, env: { HOME: dir, CLAUDE_CONFIG_DIR: config, CCLINT_HOME: path.join(dir, 'state'), PATH: process.env.PATH ?? '' } };
}

function cclint(args: string[], env: NodeJS.ProcessEnv, cwd: string, sigintAfterMs?: number) {
  const started = Date.now();
  const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  const timer = sigintAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGINT'), sigintAfterMs);
  return new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; ms: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

function auditCount(dir: string): number {
  const log = path.join(dir, 'state', 'audit.jsonl');
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter((l) => l !== '').length : 0;
}

for (const [label, count, runs] of [
  ['one session', 1, 6],
  ['a folder of five sessions', 5, 10],
] as const) {
  describe(`SIGINT during cclint fix --yes of ${label}`, () => {
    let order: string[] = [];
    let fixed = new Map<string, string>();
    let controlMs = 0;

    it('runs to the end when not interrupted (the harness works)', async () => {
      const { dir, projectDir, files } = setUp(`${count}-control`, count);
      const run = await cclint(['fix', '--yes', projectDir], setUp(`${count}-control`, count).env, dir);
      expect(run.code, run.stderr).toBe(0);
      controlMs = run.ms;
      order = [...run.stdout.matchAll(/^fixed \S*?([0-9a-f-]{36})\.jsonl/gm)].map((m) => m[1] as string);
      expect(order).toHaveLength(count);
      fixed = new Map(files.map((f) => [path.basename(f, '.jsonl'), sha(fs.readFileSync(f))]));
    }, 300_000);

    it(`${runs} interrupts: exit 130, each file old or new, nothing after the interrupted file touched`, async () => {
      let interrupted = 0;
      for (let k = 0; k < runs; k++) {
        const delay = Math.round(controlMs * (0.15 + (0.9 * k) / (runs - 1)));
        const { dir, projectDir, files, env } = setUp(`${count}-${k}`, count);
        const run = await cclint(['fix', '--yes', projectDir], env, dir, delay);
        // A signal that arrives before fix handles it (Node starting, the
        // modules loading: nothing read yet) or while the process is already
        // exiting (its work done, its handlers torn down) ends it by the
        // signal itself.
        const bySignal = run.code === null && run.signal === 'SIGINT';
        if (!bySignal) expect([0, 130], `run ${k} at ${delay} ms: ${run.stderr}`).toContain(run.code);
        if (run.code === 130) {
          interrupted++;
          expect(run.stderr).toMatch(/interrupted/);
        }
        const state = order.map((sid) => {
          const file = files.find((f) => f.endsWith(`${sid}.jsonl`)) as string;
          const hash = sha(fs.readFileSync(file));
          const original = sha(sessions.find((s) => s.sid === sid)?.text as Buffer);
          expect([original, fixed.get(sid)], `run ${k}: ${sid}`).toContain(hash);
          return hash === fixed.get(sid) ? 'new' : 'old';
        });
        // The fixed files are the first ones in the run's order, each audited.
        const newCount = state.filter((s) => s === 'new').length;
        expect(state, `run ${k}`).toEqual([...Array(newCount).fill('new'), ...Array(count - newCount).fill('old')]);
        expect(auditCount(dir), `run ${k}`).toBe(newCount);
        if (run.code === 0) expect(newCount, `run ${k}`).toBe(count);
        if (bySignal) expect([0, count], `run ${k}: ended by the signal`).toContain(newCount);
        expect(fs.readdirSync(projectDir).sort(), `run ${k}`).toEqual(files.map((f) => path.basename(f)).sort());
        fs.rmSync(dir, { recursive: true, force: true });
      }
      expect(interrupted).toBeGreaterThan(0);
    }, 600_000);
  });
}
