/**
 * The writer: the only code that changes a transcript. It commits one
 * {@link FilePlan} in a fixed order, where every step depends on the one
 * before (style.md §4.5):
 *
 * 1. settle the journal entries of cclint runs that were killed (journal.ts);
 * 2. refuse a session that looks live (live.ts) unless `--force`;
 * 3. take the file's write lock (one cclint writer per file: journal.ts),
 *    open the file (kept open: its inode is where a live Claude Code may
 *    still append), choose the backup path and record the intent in the
 *    journal, fsynced, with the whole audit entry;
 * 4. back the old bytes up outside the projects root, mode 0600, fsynced,
 *    and verify the copy's hash (backup.ts);
 * 5. re-hash the bytes the plan was made from and refuse if they changed
 *    (lines appended after them are fine: they are carried);
 * 6. give the old inode a second, hidden name (so lines a live session
 *    writes into it after the rename survive a kill; journal.ts), then
 *    swap the new bytes in (swap.ts): temp file + rename, mode, owner and
 *    group kept (a `sudo cclint fix` leaves the session its user's), and
 *    every line appended meanwhile carried into the new file in order, or
 *    the old bytes put back with them when they cannot follow the fix;
 * 7. read the new bytes back and verify their hash;
 * 8. append one line to the audit log (hashes and line numbers, never
 *    record bodies), then remove the journal entry;
 * 9. delete the `resume-head.jsonl` cache, and put the old mtime back only
 *    when asked.
 *
 * A failure before step 6 leaves the transcript untouched. A kill at any
 * instant leaves the old bytes, or the new bytes with a journal entry the
 * next run completes into an audit line, so `restore` works.
 *
 * The pieces live beside this file: state-paths.ts, live.ts, backup.ts,
 * audit.ts, journal.ts, swap.ts; this module re-exports what other modules
 * and commands use, so `commitPlan(plan, options)` stays the one entry point.
 */
import path from 'node:path';
import { BackupError, CclintError, ConcurrentModificationError, PathError } from '../core/errors.js';
import { VERSION } from '../version.js';
import { appendAudit, auditFixes, isAuditLogHead, newAuditId } from './audit.js';
import { assertStateOutsideProjects, chooseBackupPath, writeBackup } from './backup.js';
import { handleContent, rewriteContent } from './content.js';
import type { FileStat, FsPort, ReadHandle } from './fs-port.js';
import { errorText, headOfFile, removeQuietly } from './fs-port.js';
import { addUuidFields, namedIn } from './uuids.js';
import { beginJournal, hashPrefix, keptInodePath, lockForWriting, recoverJournals, settleJournal, tempPathFor } from './journal.js';
import type { JournalRecord } from './journal.js';
import { assertNotLive } from './live.js';
import type { CommitOptions } from './options.js';
import { journalDir, statePaths } from './state-paths.js';
import { swapCarrying } from './swap.js';
import { assertNoLinks, assertStateNotLinked, chain, secureHome } from './trust.js';
import type { AuditEntry, FilePlan } from './types.js';

export { appendAudit, auditFixes, newAuditId, readAuditLog } from './audit.js';
export { backupPathFor } from './backup.js';
export { recoverJournals } from './journal.js';
export { assertNotLive, DEFAULT_SETTLE_MS, isPidAlive, liveRefusalNow } from './live.js';
export type { CommitOptions } from './options.js';
export { cclintHome, claudeConfigDir, statePaths } from './state-paths.js';

/** Extra audit fields for a restore (see `restore.ts`). */
export interface CommitExtras {
  readonly kind: 'restore';
  readonly restores: string;
}

/**
 * Commits one plan (steps above) and returns the audit entry it appended.
 * Throws {@link LiveSessionError}, {@link BackupError},
 * {@link ConcurrentModificationError} or {@link CclintError} (exit 2); the
 * message says what state the file is in.
 */
export function commitPlan(plan: FilePlan, options: CommitOptions): AuditEntry {
  return commitWith(plan, options, undefined);
}

/**
 * Uuids the plan removes or renames: lines appended by a live session that
 * refer to one of them cannot follow the new bytes. A plan that is not a
 * fix (a restore) says which itself.
 */
function goneUuids(plan: FilePlan): readonly string[] {
  if (plan.removedUuids !== undefined) return plan.removedUuids;
  const before = new Set<string>();
  const after = new Set<string>();
  for (const fix of plan.applied) {
    for (const edit of fix.edits) {
      if (edit.kind !== 'insertAfter') addUuidFields(edit.before, before);
      if (edit.kind !== 'delete') for (const line of edit.after) addUuidFields(line, after);
    }
  }
  return [...before].filter((u) => !after.has(u));
}

/**
 * Links the inode behind `old` at `kept`. Where the file system has no hard
 * links the swap goes on without (only a kill in the carry window could then
 * lose a late line, as before); a link to another file means the path was
 * replaced since it was opened, and nothing is written.
 */
function keepOldInode(port: FsPort, file: string, kept: string, old: ReadHandle, shown: string): void {
  try {
    port.link(file, kept);
  } catch {
    return;
  }
  let same = false;
  try {
    same = port.stat(kept).ino === old.ino();
  } catch {
    same = false;
  }
  if (!same) {
    removeQuietly(port, kept);
    throw new ConcurrentModificationError(`${shown} was replaced after the fix was planned; nothing was written; run cclint fix again`);
  }
}

/** {@link commitPlan}, with the extra audit fields a restore records. */
export function commitWith(plan: FilePlan, options: CommitOptions, extras: CommitExtras | undefined): AuditEntry {
  const port = options.fs;
  const file = plan.file.path;
  const shown = plan.file.displayPath;
  if (plan.refusal !== undefined) throw new Error(`commitPlan: the plan for ${shown} was refused (${plan.refusal})`);
  // The new bytes are checked against sha256After as they are written (content.ts).
  if (plan.sha256Before === plan.sha256After) throw new Error(`commitPlan: the plan for ${shown} changes nothing`);

  // 1. Finish what killed runs left.
  recoverJournals(options);

  // 2. Never through a link; live session?
  const { backupRoot, auditLog } = statePaths(options);
  assertNoLinks(options, plan, backupRoot, auditLog);
  let stat: FileStat;
  try {
    stat = port.stat(file);
  } catch (error) {
    throw new ConcurrentModificationError(`cannot write ${shown}: ${errorText(error)}; it was there when the fix was planned`);
  }
  assertNotLive(plan, stat, options);
  assertStateOutsideProjects(options, plan, backupRoot, auditLog);

  // 3. Open the file, choose the backup, record the intent.
  secureHome(options);
  try {
    // Before the swap, so the audit line after it cannot fail for want of a folder.
    port.mkdirp(path.dirname(auditLog), 0o700);
  } catch (error) {
    throw new BackupError(`cannot create the folder of the audit log ${auditLog}: ${errorText(error)}; nothing was changed`);
  }
  // Nor for a log that is not a file (its append, non-blocking, would fail after the swap).
  let log: FileStat | undefined;
  try {
    log = port.lstat(auditLog);
  } catch {
    log = undefined; // created with the first line
  }
  if (log !== undefined && !log.isFile) {
    throw new PathError(
      `refusing to write ${shown}: cclint's audit log ${auditLog} is not a regular file (a folder, a named pipe, a device or a socket); nothing was changed`,
    );
  }
  // Nor for a file that is not an audit log: `--audit-log other-session.jsonl` appended the line to that session.
  if (log !== undefined && log.size > 0 && !isAuditLogHead(headOfFile(port, auditLog, 4096))) {
    throw new PathError(
      `refusing to write ${shown}: ${auditLog} is not a cclint audit log (its first line is not an audit entry), and cclint appends only to its own; give another --audit-log; nothing was changed`,
    );
  }
  // One writer at a time per file, from before the bytes are checked to after the audit line.
  const unlock = lockForWriting(port, journalDir(options), file, shown, options.isPidAlive);
  try {
    return commitLocked(plan, options, extras, { backupRoot, auditLog, stat });
  } finally {
    unlock();
  }
}

/** Steps 3 to 9 of {@link commitWith}, under the file's write lock. */
function commitLocked(
  plan: FilePlan,
  options: CommitOptions,
  extras: CommitExtras | undefined,
  state: { readonly backupRoot: string; readonly auditLog: string; readonly stat: FileStat },
): AuditEntry {
  const port = options.fs;
  const file = plan.file.path;
  const shown = plan.file.displayPath;
  const now = options.now ?? Date.now;
  const { backupRoot, auditLog, stat } = state;
  let old: ReadHandle;
  try {
    old = port.openRead(file);
  } catch (error) {
    throw new ConcurrentModificationError(`cannot write ${shown}: ${errorText(error)}; nothing was written`);
  }
  try {
    const startedAt = now();
    const id = newAuditId(startedAt);
    const backup = chooseBackupPath(options, plan, backupRoot, startedAt);
    assertStateNotLinked(port, plan, chain(path.dirname(backup), path.dirname(backupRoot)));
    const entry: AuditEntry = {
      id,
      ...(extras ?? { kind: 'fix' }),
      time: new Date(startedAt).toISOString(),
      cclintVersion: options.version ?? VERSION,
      file,
      sessionId: plan.file.layoutSessionId,
      sha256Before: plan.sha256Before,
      sha256After: plan.sha256After,
      sizeAfter: plan.rewrite.size,
      backup,
      decidedBy: options.decidedBy,
      resumeBefore: plan.resumeBefore,
      resumeAfter: plan.resumeAfter,
      scoreBefore: plan.scoreBefore,
      scoreAfter: plan.scoreAfter,
      fixes: auditFixes(plan.applied),
    };
    const record: JournalRecord = {
      version: 1,
      id,
      pid: process.pid,
      file,
      backup,
      auditLog,
      sizeBefore: plan.sizeBefore,
      sha256Before: plan.sha256Before,
      sizeAfter: plan.rewrite.size,
      sha256After: plan.sha256After,
      entry,
    };
    let journal: string;
    try {
      journal = beginJournal(port, journalDir(options), record);
    } catch (error) {
      throw new CclintError(`could not record the write of ${shown} in cclint's journal: ${errorText(error)}; nothing was changed`);
    }
    let settled = false;
    // Until the swap starts, nothing of the transcript has been written.
    let swapping = false;
    try {
      // 4. Backup, copied from the open handle.
      writeBackup(options, plan, backup, old);

      // 5. Unchanged since planned (appended lines are carried)?
      let hash: string | undefined;
      try {
        hash = hashPrefix(old, plan.sizeBefore);
      } catch {
        hash = undefined;
      }
      if (hash !== plan.sha256Before) {
        settled = true;
        removeQuietly(port, backup); // a copy of bytes that are no longer the file's
        removeQuietly(port, journal);
        throw new ConcurrentModificationError(
          `${shown} changed after the fix was planned (Claude Code may be writing to it); nothing was written; run cclint fix again`,
        );
      }

      // 6. Keep the old inode reachable, swap, carry appended lines.
      swapping = true;
      keepOldInode(port, file, keptInodePath(file, id), old, shown);
      const gone = goneUuids(plan);
      const result = swapCarrying({
        fs: port,
        file,
        shown,
        old,
        planned: plan.sizeBefore,
        // The kept ranges come from `old`, whose first sizeBefore bytes were just verified.
        content: rewriteContent(plan.rewrite, plan.sha256After, old, port),
        fallback: handleContent(old, plan.sizeBefore, plan.sha256Before),
        mode: stat.mode,
        owner: { uid: stat.uid, gid: stat.gid },
        tempFor: (round) => tempPathFor(file, id, round),
        fits: (appended) => gone.length === 0 || namedIn(appended.toString('utf8'), gone) === undefined,
      });
      if (result.reverted) {
        throw new ConcurrentModificationError(
          `${shown} got new lines while the fix was written that refer to records the fix changes, so its old content was put back, followed by every new line; nothing is lost; run cclint fix again once the session is closed`,
        );
      }

      // 7. Read back.
      let back: string | undefined;
      try {
        const handle = port.openRead(file);
        try {
          back = hashPrefix(handle, plan.rewrite.size);
        } finally {
          handle.close();
        }
      } catch {
        back = undefined;
      }
      if (back !== plan.sha256After) {
        // Writing again could overwrite bytes someone else wrote since: leave the file as it is.
        settled = true;
        settleJournal(port, journal, record);
        throw new CclintError(
          `${shown} did not read back as written; cclint left it as it is, so nothing written since is overwritten; its content from before the fix is in ${backup}`,
        );
      }

      // 8. Audit line, then the journal entry is done.
      try {
        appendAudit(port, auditLog, entry);
      } catch (error) {
        settled = true; // the journal stays: the next fix or restore appends the line
        throw new CclintError(
          `fixed ${shown}, but could not append to the audit log ${auditLog}: ${errorText(error)}; the backup is ${backup}; the next cclint fix or restore records it`,
        );
      }
      settled = true;
      removeQuietly(port, keptInodePath(file, id));
      removeQuietly(port, journal);
    } finally {
      if (!settled && swapping) settleJournal(port, journal, record);
      else if (!settled) {
        // A failure before the swap (the backup found the file was not what
        // was planned, say) wrote nothing: the journal goes, and no audit line.
        // Settling it instead would audit a write that never happened when
        // the file already holds the planned bytes (another run wrote them).
        removeQuietly(port, backup);
        removeQuietly(port, journal);
      }
    }

    // 9. Side files and mtime.
    if (plan.file.role === 'main' && plan.file.layoutSessionId !== undefined) {
      const head = path.join(plan.file.projectDir, plan.file.layoutSessionId, 'resume-head.jsonl');
      removeQuietly(port, head); // Claude Code verifies the cache against the transcript and rebuilds it
    }
    if (options.keepMtime === true) {
      try {
        port.utimes(file, now(), stat.mtimeMs);
      } catch {
        // Only cosmetic: the content is written and audited.
      }
    }
    return entry;
  } finally {
    old.close();
  }
}
