/**
 * Undo: put a file back exactly as it was before a fix, from the backup the
 * fix recorded in the audit log. It refuses when the file changed since the
 * fix (its hash is no longer the fix's `sha256After`) or when the backup is
 * not the fix's `sha256Before`. The restore itself goes through the writer
 * (live-session guard, a backup of the current bytes, atomic write) and is
 * audited, so `cclint restore <restore-id>` redoes the fix.
 */
import path from 'node:path';
import { classifyPath, defaultProjectsRoot } from '../core/discovery.js';
import { BackupError, ConcurrentModificationError, PathError, UsageError } from '../core/errors.js';
import type { FsPort } from './fs-port.js';
import type { AuditEntry, FilePlan } from './types.js';
import type { CommitOptions } from './write.js';
import { sha256 } from '../core/hash.js';
import { commitWith, statePaths } from './write.js';

export interface RestoreOptions
  extends Pick<
    CommitOptions,
    'fs' | 'env' | 'cclintHome' | 'backupDir' | 'auditLog' | 'configDir' | 'force' | 'version' | 'now' | 'isPidAlive' | 'settleMs'
  > {
  readonly cwd: string;
  /** Default: `$CLAUDE_CONFIG_DIR/projects`, else `<HOME>/.claude/projects`. */
  readonly projectsRoot?: string | undefined;
}

export interface RestoreResult {
  /** The entry whose change was undone. */
  readonly undone: AuditEntry;
  /** The audit line the restore appended; undefined when the file already had the old bytes. */
  readonly entry: AuditEntry | undefined;
}

/** Every parseable entry of an audit log, oldest first; [] when there is no log. */
export function readAuditLog(port: FsPort, file: string): AuditEntry[] {
  let text: string;
  try {
    text = port.readFile(file).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new PathError(`cannot read the audit log ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const entries: AuditEntry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value = JSON.parse(line) as Partial<AuditEntry> | null;
      if (
        value !== null &&
        typeof value === 'object' &&
        typeof value.id === 'string' &&
        typeof value.file === 'string' &&
        typeof value.backup === 'string' &&
        typeof value.sha256Before === 'string' &&
        typeof value.sha256After === 'string'
      ) {
        entries.push(value as AuditEntry);
      }
    } catch {
      // A torn last line (a crash while appending) is skipped.
    }
  }
  return entries;
}

/** Whether a later restore undid `entry` (and was not itself undone). */
export function isUndone(entry: AuditEntry, entries: readonly AuditEntry[], seen = new Set<string>()): boolean {
  if (seen.has(entry.id)) return false;
  seen.add(entry.id);
  const at = entries.indexOf(entry);
  return entries.some((e, i) => i > at && e.kind === 'restore' && e.restores === entry.id && !isUndone(e, entries, seen));
}

/**
 * The entry `target` names: an audit id (or a unique prefix of one), else a
 * file path, for which it is the newest fix not already restored.
 */
export function findAuditEntry(entries: readonly AuditEntry[], target: string, cwd: string): AuditEntry | undefined {
  const byId = entries.filter((e) => e.id === target);
  if (byId.length > 0) return byId[byId.length - 1];
  const byPrefix = new Set(entries.filter((e) => target.length >= 4 && e.id.startsWith(target)).map((e) => e.id));
  if (byPrefix.size > 1) {
    throw new UsageError(`audit id prefix "${target}" is ambiguous (${[...byPrefix].slice(0, 5).join(', ')}); give more of it`);
  }
  const [prefixId] = byPrefix;
  if (prefixId !== undefined) return entries.filter((e) => e.id === prefixId).pop();
  const file = path.resolve(cwd, target);
  const forFile = entries.filter((e) => e.file === file && e.kind !== 'restore');
  for (let i = forFile.length - 1; i >= 0; i--) {
    const entry = forFile[i];
    if (entry !== undefined && !isUndone(entry, entries)) return entry;
  }
  // Every fix is undone already: name the oldest, whose "before" the file should now hold.
  return forFile[0];
}

/** `cclint restore <audit-id | file>`. */
export function restore(target: string, options: RestoreOptions): RestoreResult {
  const port = options.fs;
  const { auditLog } = statePaths(options);
  const entries = readAuditLog(port, auditLog);
  if (entries.length === 0) {
    throw new UsageError(`nothing to restore: the audit log ${auditLog} has no entries (pass --audit-log if fix used another one)`);
  }
  const undone = findAuditEntry(entries, target, options.cwd);
  if (undone === undefined) {
    throw new UsageError(`no audit entry with id "${target}", and none for a file at that path, in ${auditLog}`);
  }
  const file = classifyPath(undone.file, options.cwd);
  const shown = file.displayPath;
  const label = undone.kind === 'restore' ? `restore ${undone.id}` : `fix ${undone.id}`;

  let current: Buffer;
  try {
    current = port.readFile(undone.file);
  } catch {
    throw new PathError(
      `cannot restore ${shown}: it no longer exists; the copy from before ${label} is ${undone.backup}, copy it back by hand if you want it`,
    );
  }
  const currentHash = sha256(current);
  if (currentHash === undone.sha256Before) return { undone, entry: undefined };
  if (currentHash !== undone.sha256After) {
    throw new ConcurrentModificationError(
      `refusing to restore ${shown}: it changed after ${label} (${undone.time}), so restoring would lose those changes; the copy from before that fix is ${undone.backup}`,
    );
  }

  let backup: Buffer;
  try {
    backup = port.readFile(undone.backup);
  } catch (error) {
    throw new BackupError(
      `cannot read the backup ${undone.backup} of ${label}: ${error instanceof Error ? error.message : String(error)}; ${shown} is unchanged`,
    );
  }
  if (sha256(backup) !== undone.sha256Before) {
    throw new BackupError(`the backup ${undone.backup} does not match what ${label} recorded; ${shown} is unchanged`);
  }

  const plan: FilePlan = {
    file,
    before: current,
    sha256Before: currentHash,
    after: backup,
    sha256After: undone.sha256Before,
    applied: [],
    skipped: [],
    remaining: [],
    resumeBefore: undone.resumeAfter,
    resumeAfter: undone.resumeBefore,
    scoreBefore: undone.scoreAfter,
    scoreAfter: undone.scoreBefore,
  };
  const entry = commitWith(
    plan,
    {
      ...options,
      projectsRoot: options.projectsRoot ?? defaultProjectsRoot(options.env),
      decidedBy: 'yes',
      // The hash shows nothing changed since the fix, so a recent mtime is the fix's own write.
      ownWriteSince: Date.parse(undone.time) - 1000,
    },
    { kind: 'restore', restores: undone.id },
  );
  return { undone, entry };
}
