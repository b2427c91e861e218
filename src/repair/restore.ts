/**
 * Undo: put a file back exactly as it was before a fix, from the backup the
 * fix recorded in the audit log. It refuses when the file changed since the
 * fix (its hash is no longer the fix's `sha256After`) or when the backup is
 * not the fix's `sha256Before`. The restore itself goes through the writer
 * (live-session guard, a backup of the current bytes, atomic write) and is
 * audited, so `cclint restore <restore-id>` redoes the fix.
 */
import path from 'node:path';
import { classifyPath, defaultProjectsRoot, fsErrorReason } from '../core/discovery.js';
import { BackupError, ConcurrentModificationError, PathError, UsageError } from '../core/errors.js';
import { createHash } from 'node:crypto';
import type { AuditEntry, FilePlan } from './types.js';
import type { CommitOptions } from './write.js';
import { commitWith, readAuditLog, recoverJournals, statePaths } from './write.js';
import { backupPathFor } from './backup.js';
import { handleRange } from './content.js';
import type { FileStat, ReadHandle } from './fs-port.js';
import { Rewrite } from './rewrite.js';
import { namedInRange, uuidFieldsInRange } from './uuids.js';
import { entryLabel } from './audit.js';
import { hashPrefix } from './journal.js';

export { readAuditLog } from './audit.js';

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
  /** The audit line the restore appended; undefined when the file already had the old bytes, or the change was undone already. */
  readonly entry: AuditEntry | undefined;
  /** The restore that had undone the change already (nothing was read or written). */
  readonly undoneBy?: AuditEntry | undefined;
}

/** The later restore that undid `entry` and was not itself undone, if there is one. */
export function undoneBy(entry: AuditEntry, entries: readonly AuditEntry[], seen = new Set<string>()): AuditEntry | undefined {
  if (seen.has(entry.id)) return undefined;
  seen.add(entry.id);
  const at = entries.indexOf(entry);
  return entries.find((e, i) => i > at && e.kind === 'restore' && e.restores === entry.id && undoneBy(e, entries, seen) === undefined);
}

/** Whether a later restore undid `entry` (and was not itself undone). */
export function isUndone(entry: AuditEntry, entries: readonly AuditEntry[]): boolean {
  return undoneBy(entry, entries) !== undefined;
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
  const { auditLog, backupRoot } = statePaths(options);
  // A fix killed after its swap gets its audit line here, so it can be undone.
  recoverJournals(options);
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
  const label = entryLabel(undone);
  assertWhereCclintPutIt(undone, file, backupRoot, label);

  // What stands at the path now: gone, or something restore does not write (a link, a named pipe).
  let now: FileStat | undefined;
  try {
    now = port.lstat(undone.file);
  } catch {
    now = undefined;
  }
  if (now === undefined) {
    throw new PathError(
      `cannot restore ${shown}: it no longer exists; the copy from before ${label} is ${undone.backup}, copy it back by hand if you want it`,
    );
  }
  if (now.isSymbolicLink === true || !now.isFile) {
    throw new PathError(
      `cannot restore ${shown}: it is ${now.isSymbolicLink === true ? 'a symbolic link' : 'not a regular file'} now, which cclint does not write; the copy from before ${label} is ${undone.backup}`,
    );
  }
  let current: ReadHandle;
  try {
    current = port.openRead(undone.file);
  } catch (error) {
    throw new PathError(`cannot restore ${shown}: ${fsErrorReason(error, shown)}; the copy from before ${label} is ${undone.backup}`);
  }
  let plan: FilePlan;
  try {
    const size = current.size();
    // Lines a live session appended after the fix's bytes are kept, after the old bytes.
    const fixedLength = Math.min(undone.sizeAfter ?? size, size);
    const [fixedHash, currentHash] = prefixAndWholeHash(current, fixedLength, size);
    if (currentHash === undone.sha256Before) return { undone, entry: undefined };
    if (size < (undone.sizeAfter ?? size) || fixedHash !== undone.sha256After) {
      // Undone already, and the file still holds what that undo wrote (lines appended since aside): nothing to do.
      const already = undoneBy(undone, entries);
      if (already !== undefined && hashPrefix(current, already.sizeAfter ?? size) === already.sha256After) return { undone, entry: undefined, undoneBy: already };
      throw new ConcurrentModificationError(
        `refusing to restore ${shown}: it changed after ${label} (${undone.time}), so restoring would lose those changes; the copy from before it is ${undone.backup}`,
      );
    }
    let backup: ReadHandle;
    try {
      backup = port.openRead(undone.backup);
    } catch (error) {
      throw new BackupError(
        `cannot read the backup ${undone.backup} of ${label}: ${error instanceof Error ? error.message : String(error)}; ${shown} is unchanged`,
      );
    }
    try {
      const backupSize = backup.size();
      const hash = createHash('sha256');
      for (const chunk of handleRange(backup, 0, backupSize)) hash.update(chunk);
      if (hash.copy().digest('hex') !== undone.sha256Before) {
        throw new BackupError(`the backup ${undone.backup} does not match what ${label} recorded; ${shown} is unchanged`);
      }
      for (const chunk of handleRange(current, fixedLength, size)) hash.update(chunk);
      const removed = uuidFieldsInRange(current, 0, fixedLength);
      for (const uuid of uuidFieldsInRange(backup, 0, backupSize)) removed.delete(uuid);
      // Lines added after the fix are kept after the old bytes; one that names
      // a record the fix made (a fresh uuid) would then hang from nothing.
      const dangling = namedInRange(current, fixedLength, size, removed);
      if (dangling !== undefined) {
        throw new ConcurrentModificationError(
          `refusing to restore ${shown}: lines added after ${label} refer to a record it made (uuid ${dangling}), which the restore would take away and leave them hanging from nothing; the copy from before it is ${undone.backup}`,
        );
      }
      plan = {
        file,
        sizeBefore: size,
        sha256Before: currentHash,
        // The backup, then what was appended after the fix's bytes.
        rewrite: Rewrite.of([
          { kind: 'file', path: undone.backup, start: 0, end: backupSize },
          { kind: 'kept', start: fixedLength, end: size },
        ]),
        sha256After: hash.digest('hex'),
        applied: [],
        skipped: [],
        remaining: [],
        remainingInfo: 0,
        resumeBefore: undone.resumeAfter,
        resumeAfter: undone.resumeBefore,
        scoreBefore: undone.scoreAfter,
        scoreAfter: undone.scoreBefore,
        removedUuids: [...removed],
      };
    } finally {
      backup.close();
    }
  } finally {
    current.close();
  }
  if (plan.sha256After === plan.sha256Before) return { undone, entry: undefined };

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

/**
 * Refuses an audit entry whose file or backup is not where cclint puts them:
 * the file must be a `.jsonl` transcript path, and the backup a
 * `.jsonl.bak` in that file's folder of the backups root, named with the
 * first hex digits of the hash it must have. A line forged into the audit
 * log therefore cannot make `restore` write an arbitrary file, or from an
 * arbitrary source.
 */
function assertWhereCclintPutIt(entry: AuditEntry, file: ReturnType<typeof classifyPath>, backupRoot: string, label: string): void {
  const refuse = (why: string): never => {
    throw new BackupError(`refusing to restore from audit entry ${entry.id} (${label}): ${why}; nothing was changed`);
  };
  if (!path.isAbsolute(entry.file) || !entry.file.toLowerCase().endsWith('.jsonl')) refuse(`its file ${entry.file} is not a transcript path`);
  if (!/^[0-9a-f]{64}$/.test(entry.sha256Before) || !/^[0-9a-f]{64}$/.test(entry.sha256After)) refuse('its hashes are malformed');
  const expected = path.dirname(backupPathFor({ file, sha256Before: entry.sha256Before } as FilePlan, backupRoot, 0));
  const named = new RegExp(`-${entry.sha256Before.slice(0, 8)}(?:-\\d+)?\\.jsonl\\.bak$`);
  if (path.resolve(path.dirname(entry.backup)) !== expected || !named.test(path.basename(entry.backup))) {
    refuse(`its backup ${entry.backup} is not where cclint keeps the backups of ${file.displayPath} (${expected}; pass --backup-dir if the fix used one)`);
  }
}

/** The sha256 of the first `cut` bytes behind a handle and of its first `size` bytes, in one read. */
function prefixAndWholeHash(handle: ReadHandle, cut: number, size: number): [string, string] {
  const hash = createHash('sha256');
  for (const chunk of handleRange(handle, 0, cut)) hash.update(chunk);
  const prefix = hash.copy().digest('hex');
  for (const chunk of handleRange(handle, cut, size)) hash.update(chunk);
  return [prefix, hash.digest('hex')];
}
