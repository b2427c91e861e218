/**
 * Live-session detection: a session changed within the last minute, or held
 * by a running Claude Code per `<config>/sessions/*.json`, is refused unless
 * `--force` (with `--force`, the append-safe swap in swap.ts still carries
 * whatever Claude Code appends meanwhile).
 */
import path from 'node:path';
import { LiveSessionError } from '../core/errors.js';
import type { SessionFile } from '../core/session-index.js';
import { type FileStat, type FsPort, headOfFile } from './fs-port.js';
import type { CommitOptions } from './options.js';
import { claudeConfigDir } from './state-paths.js';
import type { FilePlan } from './types.js';

/** A session changed more recently than this is treated as live. */
export const DEFAULT_SETTLE_MS = 60_000;

/** Whether a live process holds the pid (EPERM: alive, someone else's). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The session ids a file may be registered under: its layout id, and the `sessionId` of its records. */
function sessionIdsOf(file: SessionFile, size: number, port: FsPort): Set<string> {
  const ids = new Set<string>();
  if (file.layoutSessionId !== undefined) ids.add(file.layoutSessionId);
  // The first record's `sessionId` is in the first bytes.
  const head = headOfFile(port, file.path, Math.min(size, 64 * 1024));
  const match = /"sessionId"\s*:\s*"([^"]+)"/.exec(head);
  if (match?.[1] !== undefined) ids.add(match[1]);
  return ids;
}

/** A live Claude Code process holding one of `ids`, per `<configDir>/sessions/*.json`. */
function liveHolder(
  port: FsPort,
  configDir: string,
  ids: ReadonlySet<string>,
  alive: (pid: number) => boolean,
): { pid: number; registryFile: string } | undefined {
  const dir = path.join(configDir, 'sessions');
  let names: string[];
  try {
    names = port.readdir(dir);
  } catch {
    return undefined; // no registry, or unreadable: do not block on it
  }
  for (const name of names.sort()) {
    if (!name.endsWith('.json')) continue;
    const registryFile = path.join(dir, name);
    let entry: unknown;
    try {
      entry = JSON.parse(port.readFile(registryFile).toString('utf8'));
    } catch {
      continue;
    }
    if (typeof entry !== 'object' || entry === null) continue;
    const { sessionId, pid } = entry as { sessionId?: unknown; pid?: unknown };
    if (typeof sessionId !== 'string' || !ids.has(sessionId)) continue;
    const pidNumber = typeof pid === 'number' ? pid : Number(name.slice(0, -'.json'.length));
    if (alive(pidNumber)) return { pid: pidNumber, registryFile };
  }
  return undefined;
}

/**
 * Why writing `file` now would be refused as live, or undefined when it may
 * be written (or `force` says to write anyway): changed within the settle
 * time (by its mtime in `stat`), or held by a running Claude Code.
 *
 * The commit asks this at the moment of writing ({@link assertNotLive});
 * `fix` and `rename` ask it before they read a file too, so that a live
 * session is refused before its questions are asked or its bytes are read,
 * not after.
 */
export function liveRefusal(file: SessionFile, stat: FileStat, options: CommitOptions): string | undefined {
  if (options.force === true) return undefined;
  const now = (options.now ?? Date.now)();
  const settle = options.settleMs ?? DEFAULT_SETTLE_MS;
  const age = now - stat.mtimeMs;
  const shown = file.displayPath;
  const ours = options.ownWriteSince !== undefined && stat.mtimeMs >= options.ownWriteSince;
  if (age < settle && !ours) {
    const ago = age < 0 ? 'in the future (by its mtime)' : `${Math.round(age / 1000)} s ago`;
    return `refusing to write ${shown}: it changed ${ago} and may still be open in Claude Code; re-run after the session ends (wait a minute), or pass --force`;
  }
  const holder = liveHolder(
    options.fs,
    options.configDir ?? claudeConfigDir(options.env),
    sessionIdsOf(file, stat.size, options.fs),
    options.isPidAlive ?? isPidAlive,
  );
  if (holder !== undefined) {
    return `refusing to write ${shown}: its session is open in a running Claude Code (pid ${holder.pid}, per ${holder.registryFile}); quit that session first, or pass --force`;
  }
  return undefined;
}

/**
 * {@link liveRefusal} of `file` as it is now, asked before a command reads
 * it (`fix`, `rename`); undefined when it cannot even be looked at, which
 * its read or its write then reports.
 */
export function liveRefusalNow(file: SessionFile, options: CommitOptions): string | undefined {
  let stat: FileStat;
  try {
    stat = options.fs.stat(file.path);
  } catch {
    return undefined;
  }
  return liveRefusal(file, stat, options);
}

/** Step 2 of a commit: throws {@link LiveSessionError} unless `force`. */
export function assertNotLive(plan: FilePlan, stat: FileStat, options: CommitOptions): void {
  const refusal = liveRefusal(plan.file, stat, options);
  if (refusal !== undefined) throw new LiveSessionError(refusal);
}
