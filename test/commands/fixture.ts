/**
 * Tiny builders and a fake Io for the command tests: synthetic transcripts
 * in a temporary projects root, never the real ~/.claude.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type RunResult, run as runCli } from '../support/cli.js';

export const PROJECT = '-home-u-proj';
export const CWD = '/home/u/proj';
export const T0 = Date.UTC(2026, 0, 5, 3, 0, 0);

/** A readable canonical uuid: `id(3)` is `00000003-0000-4000-8000-000000000000`. */
export function id(n: number | string): string {
  return typeof n === 'string' && n.includes('-') ? n : `${String(n).padStart(8, '0')}-0000-4000-8000-000000000000`;
}

/** A session id: `sid(1)` is `5e551011-…`. */
export function sid(n: number): string {
  return `5e55${String(n).padStart(4, '0')}-0000-4000-8000-000000000000`;
}

export interface RowOptions {
  /** Seconds after T0 (default: the record number, in minutes, so no 5 s bridges). */
  readonly at?: number;
  readonly session?: string;
  readonly sidechain?: boolean;
  readonly cwd?: string;
  readonly extra?: Record<string, unknown>;
}

function envelope(_n: number, parent: number | string | null, type: string, o: RowOptions): Record<string, unknown> {
  return {
    parentUuid: parent === null ? null : id(parent),
    isSidechain: o.sidechain ?? false,
    userType: 'external',
    cwd: o.cwd ?? CWD,
    sessionId: o.session ?? sid(1),
    version: '2.1.29',
    type,
  };
}

function stamp(n: number, o: RowOptions): string {
  return new Date(T0 + (o.at ?? n * 60) * 1000).toISOString();
}

export function user(n: number, parent: number | string | null, text: string, o: RowOptions = {}): Record<string, unknown> {
  return { ...envelope(n, parent, 'user', o), message: { role: 'user', content: text }, uuid: id(n), timestamp: stamp(n, o), ...o.extra };
}

export function toolResult(n: number, parent: number | string | null, toolId: string, o: RowOptions = {}): Record<string, unknown> {
  return {
    ...envelope(n, parent, 'user', o),
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: 'ok' }] },
    uuid: id(n),
    timestamp: stamp(n, o),
    ...o.extra,
  };
}

export function assistant(
  n: number,
  parent: number | string | null,
  text: string,
  o: RowOptions & { tools?: ReadonlyArray<[string, string]> } = {},
): Record<string, unknown> {
  const content: unknown[] = text === '' ? [] : [{ type: 'text', text }];
  for (const [toolId, name] of o.tools ?? []) content.push({ type: 'tool_use', id: toolId, name, input: {} });
  return {
    ...envelope(n, parent, 'assistant', o),
    message: { id: `msg_${n}`, role: 'assistant', content },
    uuid: id(n),
    timestamp: stamp(n, o),
    ...o.extra,
  };
}

export function boundary(n: number, logicalParent: number, o: RowOptions = {}): Record<string, unknown> {
  return {
    ...envelope(n, null, 'system', o),
    subtype: 'compact_boundary',
    content: 'Conversation compacted',
    logicalParentUuid: id(logicalParent),
    compactMetadata: { trigger: 'auto', preTokens: 1000 },
    uuid: id(n),
    timestamp: stamp(n, o),
  };
}

export function progress(n: number, parent: number, o: RowOptions = {}): Record<string, unknown> {
  return { ...envelope(n, parent, 'progress', o), data: { type: 'hook_progress' }, uuid: id(n), timestamp: stamp(n, o) };
}

export function jsonl(records: ReadonlyArray<Record<string, unknown>>): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}

export interface Sandbox {
  readonly dir: string;
  readonly projects: string;
  readonly env: NodeJS.ProcessEnv;
  /** Writes `<projects>/<project>/<name>` and returns its absolute path. */
  write(name: string, records: ReadonlyArray<Record<string, unknown>>, project?: string): string;
  cleanup(): void;
}

/** A temporary home: CLAUDE_CONFIG_DIR, HOME, CCLINT_HOME and XDG_CONFIG_HOME all inside it. */
export function sandbox(): Sandbox {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-cmd-')));
  const config = path.join(dir, 'claude');
  const projects = path.join(config, 'projects');
  fs.mkdirSync(projects, { recursive: true });
  return {
    dir,
    projects,
    env: {
      CLAUDE_CONFIG_DIR: config,
      HOME: path.join(dir, 'home'),
      CCLINT_HOME: path.join(dir, 'cclint'),
      XDG_CONFIG_HOME: path.join(dir, 'xdg-config'),
    },
    write(name, records, project = PROJECT) {
      const file = path.join(projects, project, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, jsonl(records));
      return file;
    },
    cleanup() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type { RunResult } from '../support/cli.js';

/** Runs `cclint <argv>` in-process with captured output, inside the sandbox. */
export async function run(
  argv: readonly string[],
  box: Sandbox,
  options: { tty?: boolean; columns?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<RunResult> {
  return runCli(argv, { env: { ...box.env, ...options.env }, cwd: options.cwd ?? box.dir, tty: options.tty, columns: options.columns });
}
