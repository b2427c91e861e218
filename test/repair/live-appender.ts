/**
 * What the writer's real-process tests share: running the built executable,
 * and a live Claude Code stand-in (appender-child.mjs) appending chained rows
 * to a session while cclint writes it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.resolve(here, '..', '..', 'dist', 'cli.js');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The built `cclint` with `args`, as a separate process. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliRun> {
  const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Starts appending rows to `file` (the first under `parent`), one every
 * `intervalMs` (0: as fast as it can), and resolves once the first is
 * written; `stop` ends it and resolves with how many rows it appended.
 */
export async function startAppender(file: string, parent: string, sessionId: string, intervalMs: number): Promise<{ stop(): Promise<number> }> {
  const appender = spawn(process.execPath, [path.join(here, 'appender-child.mjs'), file, parent, sessionId, String(intervalMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  appender.stdout.on('data', (c: Buffer) => void (out += c.toString()));
  const exited = new Promise<void>((resolve) => appender.on('exit', () => resolve()));
  await new Promise<void>((resolve) => {
    const check = (): void => (out.includes('started') ? resolve() : void setTimeout(check, 5));
    check();
  });
  return {
    async stop() {
      appender.stdin.end();
      await exited;
      return Number(/appended (\d+)/.exec(out)?.[1] ?? '-1');
    },
  };
}

/** The `live` numbers of the appended rows, in file order. */
export function liveRows(text: string): number[] {
  return [...text.matchAll(/"live":(\d+)\}$/gm)].map((m) => Number(m[1]));
}

/** A sandbox for run `i` under `tmp`: a projects folder holding one session of `text`, and its state folder. */
export function runFolder(
  tmp: string,
  i: number,
  sessionId: string,
  text: Buffer | string,
): { dir: string; projectDir: string; file: string; state: string; env: NodeJS.ProcessEnv } {
  const dir = path.join(tmp, `run-${i}`);
  const config = path.join(dir, 'claude');
  const projectDir = path.join(config, 'projects', '-tmp-app');
  const file = path.join(projectDir, `${sessionId}.jsonl`);
  fs.mkdirSync(projectDir, { recursive: true });
  fs.writeFileSync(file, text);
  const state = path.join(dir, 'state');
  return { dir, projectDir, file, state, env: { HOME: dir, CLAUDE_CONFIG_DIR: config, CCLINT_HOME: state, PATH: process.env.PATH ?? '' } };
}
