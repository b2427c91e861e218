/**
 * Runs the CLI in-process with captured output and an environment whose
 * HOME, CLAUDE_CONFIG_DIR, CCLINT_HOME and XDG_CONFIG_HOME are temporary
 * folders, so no test ever reads or writes the real ~/.claude, ~/.cclint or
 * ~/.config/cclint.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../src/program.js';
import type { Io } from '../../src/io.js';

export interface Sandbox {
  readonly root: string;
  readonly home: string;
  readonly configDir: string;
  readonly cclintHome: string;
  readonly env: NodeJS.ProcessEnv;
  cleanup(): void;
}

export function sandbox(): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-cli-'));
  const home = path.join(root, 'home');
  const configDir = path.join(home, '.claude');
  const cclintHome = path.join(root, 'cclint-home');
  fs.mkdirSync(home, { recursive: true });
  return {
    root,
    home,
    configDir,
    cclintHome,
    env: {
      HOME: home,
      CLAUDE_CONFIG_DIR: configDir,
      CCLINT_HOME: cclintHome,
      XDG_CONFIG_HOME: path.join(root, 'xdg-config'),
      PATH: process.env.PATH ?? '',
    },
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function run(
  argv: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd: string; tty?: boolean; columns?: number | undefined; answers?: string[] },
): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const answers = options.answers === undefined ? undefined : [...options.answers];
  const io: Io = {
    stdout: { write: (s) => void (stdout += s), isTTY: options.tty === true, columns: options.columns },
    stderr: { write: (s) => void (stderr += s), isTTY: false },
    stdinIsTTY: options.tty === true,
    env: options.env,
    cwd: options.cwd,
    ask:
      answers === undefined
        ? undefined
        : async (question) => {
            stdout += `${question}\n`;
            const next = answers.shift();
            if (next === undefined) throw new Error(`unexpected question: ${question}`);
            return next;
          },
    now: () => Date.now(),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** Copies the demo project into the sandbox with old mtimes (not "live"). */
export function copyDemo(box: Sandbox, into = path.join(box.configDir, 'projects')): string {
  const source = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../fixtures/demo/-home-dev-webapp');
  const target = path.join(into, '-home-dev-webapp');
  fs.mkdirSync(target, { recursive: true });
  const old = new Date(Date.now() - 3_600_000);
  for (const name of fs.readdirSync(source)) {
    if (!name.endsWith('.jsonl')) continue;
    fs.copyFileSync(path.join(source, name), path.join(target, name));
    fs.chmodSync(path.join(target, name), 0o600);
    fs.utimesSync(path.join(target, name), old, old);
  }
  return target;
}

/**
 * Writes one session file with `text` into the sandbox's default projects
 * root, under `folder`, with an old mtime (not "live"); returns its path.
 */
export function writeSession(box: Sandbox, folder: string, name: string, text: string): string {
  const dir = path.join(box.configDir, 'projects', folder);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  const old = new Date(Date.now() - 3_600_000);
  fs.utimesSync(file, old, old);
  return file;
}
