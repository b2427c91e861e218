/**
 * The writer: the only code that changes a transcript. It commits one
 * {@link FilePlan} in a fixed order, where every step depends on the one
 * before (style.md §4.5):
 *
 * 1. refuse a session that looks live (changed within the last minute, or
 *    held by a running Claude Code per `<config>/sessions/`), because an
 *    atomic rename swaps the inode under a live appender and its later lines
 *    would be lost;
 * 2. back the old bytes up outside the projects root, mode 0600, fsynced,
 *    and verify the copy's hash;
 * 3. re-hash the file and refuse if it changed since it was planned;
 * 4. write the new bytes atomically (temp file + rename, mode kept), then
 *    read them back and verify the hash;
 * 5. append one line to the audit log (hashes and line numbers, never
 *    record bodies);
 * 6. delete the `resume-head.jsonl` cache, and put the old mtime back only
 *    when asked.
 *
 * A failure before step 4 leaves the transcript untouched.
 */
import { randomBytes } from 'node:crypto';
import { sha256 } from '../core/hash.js';
import os from 'node:os';
import path from 'node:path';
import { BackupError, CclintError, ConcurrentModificationError, LiveSessionError } from '../core/errors.js';
import type { RecordEdit } from '../core/types.js';
import { VERSION } from '../version.js';
import type { FileStat, FsPort } from './fs-port.js';
import { isAtomicTempName } from './fs-port.js';
import type { AppliedFix, AuditEdit, AuditEntry, Decider, FilePlan } from './types.js';

/** A session changed more recently than this is treated as live. */
export const DEFAULT_SETTLE_MS = 60_000;

export interface CommitOptions {
  readonly fs: FsPort;
  /** HOME, CCLINT_HOME and CLAUDE_CONFIG_DIR are read from here, never from the process. */
  readonly env: NodeJS.ProcessEnv;
  readonly decidedBy: Decider;
  /** The Claude Code projects root; backups and the audit log must stay outside it. */
  readonly projectsRoot: string;
  /** Default: `$CCLINT_HOME`, else `<HOME>/.cclint`. */
  readonly cclintHome?: string | undefined;
  /** `--backup-dir`: replaces `<cclintHome>/backups`. */
  readonly backupDir?: string | undefined;
  /** `--audit-log`: replaces `<cclintHome>/audit.jsonl`. */
  readonly auditLog?: string | undefined;
  /** Claude Code's config folder (for `sessions/`); default `$CLAUDE_CONFIG_DIR`, else `<HOME>/.claude`. */
  readonly configDir?: string | undefined;
  /** Folder that relative `backupDir`/`auditLog`/`CCLINT_HOME` are resolved against. */
  readonly cwd?: string | undefined;
  /** `--force`: write even when the session looks live. */
  readonly force?: boolean | undefined;
  /** Put the file's previous mtime back after writing (so `--continue` keeps its choice). */
  readonly keepMtime?: boolean | undefined;
  readonly version?: string | undefined;
  readonly now?: (() => number) | undefined;
  readonly isPidAlive?: ((pid: number) => boolean) | undefined;
  readonly settleMs?: number | undefined;
  /**
   * A mtime at or after this (ms) is known to be cclint's own last write
   * (a restore checks the file's hash against the fix first), so it does not
   * count as Claude Code activity; the `sessions/` registry is still checked.
   */
  readonly ownWriteSince?: number | undefined;
}


function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
}

/** `$CCLINT_HOME`, else `<HOME>/.cclint` (HOME from `env`). */
export function cclintHome(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string {
  const configured = env.CCLINT_HOME;
  if (configured !== undefined && configured !== '') return path.resolve(cwd, configured);
  return path.join(homeOf(env), '.cclint');
}

/** `$CLAUDE_CONFIG_DIR`, else `<HOME>/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  const configured = env.CLAUDE_CONFIG_DIR;
  if (configured !== undefined && configured !== '') return configured;
  return path.join(homeOf(env), '.claude');
}

/** Where state goes for these options. */
export function statePaths(options: Pick<CommitOptions, 'env' | 'cclintHome' | 'backupDir' | 'auditLog' | 'cwd'>): {
  backupRoot: string;
  auditLog: string;
} {
  const cwd = options.cwd ?? process.cwd();
  const home = options.cclintHome !== undefined ? path.resolve(cwd, options.cclintHome) : cclintHome(options.env, cwd);
  return {
    backupRoot: options.backupDir !== undefined ? path.resolve(cwd, options.backupDir) : path.join(home, 'backups'),
    auditLog: options.auditLog !== undefined ? path.resolve(cwd, options.auditLog) : path.join(home, 'audit.jsonl'),
  };
}

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

function isInside(child: string, parent: string): boolean {
  const fold = process.platform === 'darwin' || process.platform === 'win32';
  const c = fold ? child.toLowerCase() : child;
  const p = fold ? parent.toLowerCase() : parent;
  const rel = path.relative(p, c);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The session ids a file may be registered under: its layout id, and the `sessionId` of its records. */
function sessionIdsOf(plan: FilePlan): Set<string> {
  const ids = new Set<string>();
  if (plan.file.layoutSessionId !== undefined) ids.add(plan.file.layoutSessionId);
  const head = plan.before.toString('utf8', 0, Math.min(plan.before.length, 64 * 1024));
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

/** Step 1: throws {@link LiveSessionError} unless `force`. */
export function assertNotLive(plan: FilePlan, stat: FileStat, options: CommitOptions): void {
  if (options.force === true) return;
  const now = (options.now ?? Date.now)();
  const settle = options.settleMs ?? DEFAULT_SETTLE_MS;
  const age = now - stat.mtimeMs;
  const shown = plan.file.displayPath;
  const ours = options.ownWriteSince !== undefined && stat.mtimeMs >= options.ownWriteSince;
  if (age < settle && !ours) {
    const ago = age < 0 ? 'in the future (by its mtime)' : `${Math.round(age / 1000)} s ago`;
    throw new LiveSessionError(
      `refusing to write ${shown}: it changed ${ago} and may still be open in Claude Code; re-run after the session ends (wait a minute), or pass --force`,
    );
  }
  const holder = liveHolder(
    options.fs,
    options.configDir ?? claudeConfigDir(options.env),
    sessionIdsOf(plan),
    options.isPidAlive ?? isPidAlive,
  );
  if (holder !== undefined) {
    throw new LiveSessionError(
      `refusing to write ${shown}: its session is open in a running Claude Code (pid ${holder.pid}, per ${holder.registryFile}); quit that session first, or pass --force`,
    );
  }
}

function timestampForName(ms: number): string {
  return new Date(ms).toISOString().replaceAll(':', '').replace('.', '-');
}

function safeSegment(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return cleaned === '' ? '_' : cleaned;
}

/** Where the backup of this plan goes (not yet created). */
export function backupPathFor(plan: FilePlan, backupRoot: string, nowMs: number): string {
  const stem = path.basename(plan.file.path).replace(/\.jsonl$/i, '');
  const folder = plan.file.layoutSessionId ?? stem;
  // A subagent file shares its session's folder; its stem tells it apart.
  const label = plan.file.role === 'main' ? '' : `${safeSegment(stem)}-`;
  return path.join(
    backupRoot,
    safeSegment(plan.file.projectFolderName),
    safeSegment(folder),
    `${timestampForName(nowMs)}-${label}${plan.sha256Before.slice(0, 8)}.jsonl.bak`,
  );
}

/** Step 2: refuses a backup location inside the projects root, writes and verifies the copy. */
function writeBackup(plan: FilePlan, options: CommitOptions, backupRoot: string, auditLog: string, nowMs: number): string {
  const projectsRoot = path.resolve(options.cwd ?? process.cwd(), options.projectsRoot);
  for (const [what, where] of [
    ['backup folder', backupRoot],
    ['audit log', auditLog],
  ] as const) {
    if (isInside(where, projectsRoot)) {
      throw new BackupError(
        `refusing to keep the ${what} at ${where}: it is inside the Claude Code projects folder ${projectsRoot}, where Claude Code would see it; set CCLINT_HOME or --backup-dir/--audit-log to a folder outside it`,
      );
    }
  }
  const port = options.fs;
  const first = backupPathFor(plan, backupRoot, nowMs);
  let target = first;
  try {
    port.mkdirp(path.dirname(target), 0o700);
    port.mkdirp(path.dirname(auditLog), 0o700); // so the audit line after the write cannot fail for want of a folder
    for (let n = 1; port.exists(target); n++) target = first.replace(/\.jsonl\.bak$/, `-${n}.jsonl.bak`);
    port.writeNewFile(target, plan.before, { mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') removeQuietly(port, target); // a partial copy
    throw new BackupError(
      `could not back up ${plan.file.displayPath} to ${target}: ${errorText(error)}; nothing was changed`,
    );
  }
  let copy: Buffer;
  try {
    copy = port.readFile(target);
  } catch (error) {
    throw new BackupError(`could not read back the backup ${target}: ${errorText(error)}; nothing was changed`);
  }
  if (sha256(copy) !== plan.sha256Before) {
    removeQuietly(port, target);
    throw new BackupError(`the backup ${target} does not match ${plan.file.displayPath} after writing it; nothing was changed`);
  }
  return target;
}

function removeQuietly(port: FsPort, file: string): void {
  try {
    if (port.exists(file)) port.unlink(file);
  } catch {
    // Nothing more to do; the caller reports the real error.
  }
}

function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}

/** A short unique id: base-36 milliseconds and 6 random hex digits. */
export function newAuditId(nowMs: number): string {
  return `${Math.max(0, Math.floor(nowMs)).toString(36)}-${randomBytes(3).toString('hex')}`;
}

function hashLines(lines: readonly string[]): string {
  return sha256(lines.join('\n'));
}

/**
 * Each applied edit as an {@link AuditEdit}, with its inverse. An edit's line
 * numbers refer to the text of the pass it was applied in; its inverse's to
 * the text that pass produced, so undoing the passes newest first, each
 * pass's inverses together, gives the text back. Hashes are sha256 of the
 * line texts (without line endings) joined with `\n`.
 */
export function auditFixes(applied: readonly AppliedFix[]): AuditEntry['fixes'] {
  type Placed = { edit: RecordEdit; order: number };
  const byPass = new Map<number, Placed[]>();
  let order = 0;
  for (const fix of applied) {
    const list = byPass.get(fix.pass) ?? [];
    for (const edit of fix.edits) list.push({ edit, order: order++ });
    byPass.set(fix.pass, list);
  }
  const delta = (e: RecordEdit): number => (e.kind === 'replace' ? e.after.length - 1 : e.kind === 'delete' ? -1 : e.after.length);
  /** Whether `a` produces output before where `b` starts. */
  const precedes = (a: Placed, b: Placed): boolean => {
    const ea = a.edit;
    const eb = b.edit;
    if (eb.kind !== 'insertAfter') return ea.line < eb.line;
    if (ea.kind !== 'insertAfter') return ea.line <= eb.line;
    return ea.line < eb.line || (ea.line === eb.line && a.order < b.order);
  };
  const newStart = (p: Placed, pass: readonly Placed[]): number => {
    let shift = 0;
    for (const other of pass) if (other !== p && precedes(other, p)) shift += delta(other.edit);
    return p.edit.line + shift + (p.edit.kind === 'insertAfter' ? 1 : 0);
  };
  const place = new Map<RecordEdit, Placed>();
  for (const list of byPass.values()) for (const p of list) place.set(p.edit, p);

  return applied.map((fix) => {
    const pass = byPass.get(fix.pass) ?? [];
    return {
      ruleId: fix.ruleId,
      title: fix.title,
      applicability: fix.applicability,
      edits: fix.edits.map((edit) => {
        const placed = place.get(edit);
        const at = placed === undefined ? edit.line : newStart(placed, pass);
        switch (edit.kind) {
          case 'replace':
            return {
              edit: {
                kind: 'replace',
                line: edit.line,
                sha256Before: sha256(edit.before),
                sha256After: hashLines(edit.after),
                lines: edit.after.length,
              },
              inverse:
                edit.after.length === 0
                  ? { kind: 'insertAfter', line: at - 1, sha256After: sha256(edit.before), lines: 1 }
                  : {
                      kind: 'replace',
                      line: at,
                      span: edit.after.length,
                      sha256Before: hashLines(edit.after),
                      sha256After: sha256(edit.before),
                      lines: 1,
                    },
            } satisfies { edit: AuditEdit; inverse: AuditEdit };
          case 'delete':
            return {
              edit: { kind: 'delete', line: edit.line, sha256Before: sha256(edit.before) },
              inverse: { kind: 'insertAfter', line: at - 1, sha256After: sha256(edit.before), lines: 1 },
            } satisfies { edit: AuditEdit; inverse: AuditEdit };
          case 'insertAfter':
            return {
              edit: { kind: 'insertAfter', line: edit.line, sha256After: hashLines(edit.after), lines: edit.after.length },
              inverse: { kind: 'delete', line: at, span: edit.after.length, sha256Before: hashLines(edit.after) },
            } satisfies { edit: AuditEdit; inverse: AuditEdit };
        }
      }),
    };
  });
}

/** `<cclintHome>/inflight`: one journal file per atomic write in progress. */
function inflightDir(options: Pick<CommitOptions, 'env' | 'cclintHome' | 'cwd'>): string {
  const cwd = options.cwd ?? process.cwd();
  const home = options.cclintHome !== undefined ? path.resolve(cwd, options.cclintHome) : cclintHome(options.env, cwd);
  return path.join(home, 'inflight');
}

interface Journal {
  readonly path: string;
}

/**
 * Records, before an atomic write, which file is being written and by whom.
 * A process killed with SIGKILL cannot remove its temp file; the journal lets
 * the next run find it without ever touching a file that existed before.
 */
function beginWrite(port: FsPort, dir: string, id: string, file: string): Journal | undefined {
  const journal = path.join(dir, `${id}.json`);
  try {
    port.mkdirp(dir, 0o700);
    port.writeNewFile(journal, Buffer.from(`${JSON.stringify({ file, pid: process.pid })}\n`), { mode: 0o600 });
    return { path: journal };
  } catch {
    return undefined; // Without a journal only the clean-up after a SIGKILL is lost.
  }
}

function endWrite(port: FsPort, journal: Journal | undefined): void {
  if (journal === undefined) return;
  try {
    port.unlink(journal.path);
  } catch {
    // A leftover journal only makes the next run look for temp files.
  }
}

/**
 * Removes the temp files of atomic writes that were killed before they could
 * clean up (SIGKILL, power loss): files beside the journalled target named
 * like `write-file-atomic`'s temps and created after the journal. Journals of
 * a cclint that is still running are left alone. Returns the removed paths.
 */
export function recoverInterruptedWrites(
  options: Pick<CommitOptions, 'fs' | 'env' | 'cclintHome' | 'cwd' | 'isPidAlive'>,
): string[] {
  const port = options.fs;
  const dir = inflightDir(options);
  const alive = options.isPidAlive ?? isPidAlive;
  const removed: string[] = [];
  let names: string[];
  try {
    names = port.readdir(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.endsWith('.json')) continue;
    const journal = path.join(dir, name);
    let file: unknown;
    let pid: unknown;
    let startedMs: number;
    try {
      ({ file, pid } = JSON.parse(port.readFile(journal).toString('utf8')) as { file?: unknown; pid?: unknown });
      startedMs = port.stat(journal).mtimeMs;
    } catch {
      continue;
    }
    if (typeof file !== 'string') continue;
    if (typeof pid === 'number' && pid !== process.pid && alive(pid)) continue;
    let siblings: string[] = [];
    try {
      siblings = port.readdir(path.dirname(file));
    } catch {
      siblings = [];
    }
    for (const sibling of siblings) {
      if (!isAtomicTempName(file, sibling)) continue;
      const temp = path.join(path.dirname(file), sibling);
      try {
        // Coarse file-system clocks: allow two seconds of slack.
        if (port.stat(temp).mtimeMs < startedMs - 2000) continue;
        port.unlink(temp);
        removed.push(temp);
      } catch {
        // Gone already, or not ours to remove.
      }
    }
    try {
      port.unlink(journal);
    } catch {
      // Tried again next time.
    }
  }
  return removed;
}

/** Extra audit fields for a restore (see `restore.ts`). */
export interface CommitExtras {
  readonly kind: 'restore';
  readonly restores: string;
}

/**
 * Commits one plan (steps 1-6 above) and returns the audit entry it
 * appended. Throws {@link LiveSessionError}, {@link BackupError} or
 * {@link ConcurrentModificationError} (exit 2) with the file untouched.
 */
export function commitPlan(plan: FilePlan, options: CommitOptions): AuditEntry {
  return commitWith(plan, options, undefined);
}

/** {@link commitPlan}, with the extra audit fields a restore records. */
export function commitWith(plan: FilePlan, options: CommitOptions, extras: CommitExtras | undefined): AuditEntry {
  const port = options.fs;
  const file = plan.file.path;
  const shown = plan.file.displayPath;
  if (plan.refusal !== undefined) throw new Error(`commitPlan: the plan for ${shown} was refused (${plan.refusal})`);
  if (sha256(plan.before) !== plan.sha256Before || sha256(plan.after) !== plan.sha256After) {
    throw new Error(`commitPlan: the plan for ${shown} does not match its own hashes`);
  }
  if (plan.sha256Before === plan.sha256After) throw new Error(`commitPlan: the plan for ${shown} changes nothing`);
  const now = options.now ?? Date.now;

  // 1. Live session?
  let stat: FileStat;
  try {
    stat = port.stat(file);
  } catch (error) {
    throw new ConcurrentModificationError(`cannot write ${shown}: ${errorText(error)}; it was there when the fix was planned`);
  }
  assertNotLive(plan, stat, options);

  // 2. Backup.
  const startedAt = now();
  const { backupRoot, auditLog } = statePaths(options);
  const backup = writeBackup(plan, options, backupRoot, auditLog, startedAt);

  // 3. Unchanged since planned?
  let current: Buffer | undefined;
  try {
    current = port.readFile(file);
  } catch {
    current = undefined;
  }
  if (current === undefined || sha256(current) !== plan.sha256Before) {
    removeQuietly(port, backup); // a copy of bytes that are no longer the file's
    throw new ConcurrentModificationError(
      current === undefined
        ? `${shown} disappeared after the fix was planned; nothing was written`
        : `${shown} changed after the fix was planned (Claude Code may be writing to it); nothing was written; run cclint fix again`,
    );
  }

  // 4. Atomic write, keeping the mode, then verify.
  const inflight = inflightDir(options);
  recoverInterruptedWrites(options);
  const statNow = port.stat(file);
  const id = newAuditId(startedAt);
  const journal = beginWrite(port, inflight, id, file);
  try {
    port.writeFileAtomic(file, plan.after, { mode: statNow.mode });
  } catch (error) {
    throw new CclintError(`could not write ${shown}: ${errorText(error)}; the file is unchanged (backup at ${backup})`);
  } finally {
    endWrite(port, journal);
  }
  let written: Buffer | undefined;
  try {
    written = port.readFile(file);
  } catch {
    written = undefined;
  }
  if (written === undefined || sha256(written) !== plan.sha256After) {
    let putBack = false;
    try {
      port.writeFileAtomic(file, plan.before, { mode: statNow.mode });
      putBack = sha256(port.readFile(file)) === plan.sha256Before;
    } catch {
      putBack = false;
    }
    throw new CclintError(
      putBack
        ? `${shown} did not read back as written; its original content was put back`
        : `${shown} did not read back as written; copy the backup ${backup} over it to get the original back`,
    );
  }

  // 5. Audit line.
  const entry: AuditEntry = {
    id,
    ...(extras ?? { kind: 'fix' }),
    time: new Date(startedAt).toISOString(),
    cclintVersion: options.version ?? VERSION,
    file,
    sessionId: plan.file.layoutSessionId,
    sha256Before: plan.sha256Before,
    sha256After: plan.sha256After,
    backup,
    decidedBy: options.decidedBy,
    resumeBefore: plan.resumeBefore,
    resumeAfter: plan.resumeAfter,
    scoreBefore: plan.scoreBefore,
    scoreAfter: plan.scoreAfter,
    fixes: auditFixes(plan.applied),
  };
  try {
    port.appendFile(auditLog, `${JSON.stringify(entry)}\n`, { mode: 0o600 });
  } catch (error) {
    throw new CclintError(
      `fixed ${shown}, but could not append to the audit log ${auditLog}: ${errorText(error)}; the backup is ${backup}`,
    );
  }

  // 6. Side files and mtime.
  if (plan.file.role === 'main' && plan.file.layoutSessionId !== undefined) {
    const head = path.join(plan.file.projectDir, plan.file.layoutSessionId, 'resume-head.jsonl');
    try {
      if (port.exists(head)) port.unlink(head);
    } catch {
      // Claude Code verifies the cache against the transcript and rebuilds it.
    }
  }
  if (options.keepMtime === true) {
    try {
      port.utimes(file, now(), stat.mtimeMs);
    } catch {
      // Only cosmetic: the content is written and audited.
    }
  }
  return entry;
}
