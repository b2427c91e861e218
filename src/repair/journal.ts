/**
 * The journal that makes every fix undoable. Before the first byte of a
 * transcript changes, the writer records its intent durably (fsynced) in
 * `$CCLINT_HOME/inflight/<id>.json`: the file, the hashes and sizes of the
 * old and new bytes, the backup path and the whole audit entry. The entry is
 * completed (its audit line appended, then the journal removed) after the
 * swap. A run killed at any instant leaves an unfinished journal, and the
 * next `fix` or `restore` settles it:
 *
 * - the file starts with the new bytes: the fix landed, so the audit line is
 *   appended if it is missing, and `restore` works;
 * - the file holds the old bytes: the fix did not land; the backup (which no
 *   audit line names) is removed;
 * - anything else (changed by someone since): the backup is kept, nothing
 *   is written.
 *
 * Before its first rename the writer also gives the old inode a second,
 * hidden name beside the session ({@link keptInodePath}). A live Claude Code
 * whose append was opened before the rename writes into that inode; the
 * writer carries such lines into the new file, but a kill before it has done
 * so would lose them with the last name of the old inode. Recovery reads the
 * kept inode past the planned bytes and appends every line the file lacks,
 * in order, so a kill in that window loses nothing either.
 *
 * Either way the writer's temp files beside the session (`.<name>.cclint-<id>-<n>.tmp`,
 * never a `.jsonl` name) are removed.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { ConcurrentModificationError } from '../core/errors.js';
import { appendAudit, readAuditLog } from './audit.js';
import { handleRange } from './content.js';
import type { FsPort, ReadHandle } from './fs-port.js';
import { removeQuietly } from './fs-port.js';
import { isPidAlive } from './live.js';
import type { CommitOptions } from './options.js';
import { journalDir } from './state-paths.js';
import type { AuditEntry } from './types.js';

export interface JournalRecord {
  readonly version: 1;
  readonly id: string;
  readonly pid: number;
  readonly file: string;
  readonly backup: string;
  readonly auditLog: string;
  readonly sizeBefore: number;
  readonly sha256Before: string;
  readonly sizeAfter: number;
  readonly sha256After: string;
  readonly entry: AuditEntry;
}

/** The temp file of a round of the swap: hidden, beside the target, ending in `.tmp`. */
export function tempPathFor(file: string, id: string, round: number): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.cclint-${id}-${round}.tmp`);
}

/** The second name the old inode keeps while the swap may still have lines to carry from it (a writer temp name). */
export function keptInodePath(file: string, id: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.cclint-${id}-old.tmp`);
}

/** Whether `name` (in the target's folder) is a temp file of the writer for `file` (of any id, or of `id`). */
export function isWriterTempName(file: string, name: string, id?: string): boolean {
  const prefix = `.${path.basename(file)}.cclint-${id === undefined ? '' : `${id}-`}`;
  return name.startsWith(prefix) && name.endsWith('.tmp');
}

/** The sha256 of the first `length` bytes behind a handle, read in chunks; undefined when shorter. */
export function hashPrefix(handle: ReadHandle, length: number): string | undefined {
  if (handle.size() < length) return undefined;
  const hash = createHash('sha256');
  let at = 0;
  for (const chunk of handleRange(handle, 0, length)) {
    hash.update(chunk);
    at += chunk.length;
  }
  return at === length ? hash.digest('hex') : undefined;
}

function prefixIs(port: FsPort, file: string, length: number, sha: string): boolean {
  let handle: ReadHandle;
  try {
    handle = port.openRead(file);
  } catch {
    return false;
  }
  try {
    return hashPrefix(handle, length) === sha;
  } finally {
    handle.close();
  }
}

/** The write lock of `file` (see {@link lockForWriting}). */
function lockPathFor(dir: string, file: string): string {
  return path.join(dir, `${createHash('sha256').update(file).digest('hex').slice(0, 32)}${LOCK_SUFFIX}`);
}

const LOCK_SUFFIX = '.lock';

/**
 * The pid holding a lock file, `undefined` when the lock is stale: its
 * process is gone (a killed run), or it is this process's own (which holds
 * none between commits), or it cannot be read even after a moment (a lock
 * is written in one call just after it is created, so an empty one is
 * either being written now or torn by a kill).
 */
function lockHolder(port: FsPort, lock: string, alive: (pid: number) => boolean): number | undefined {
  for (let look = 0; look < 2; look++) {
    try {
      const pid = (JSON.parse(port.readFile(lock).toString('utf8')) as { pid?: unknown }).pid;
      if (typeof pid === 'number') return pid !== process.pid && alive(pid) ? pid : undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    }
    if (look === 0) port.sleep(50);
  }
  return undefined;
}

/**
 * Takes the write lock of `file` for this process: `<journal dir>/<hash of
 * the path>.lock`, created exclusively, holding the pid. Returns its release.
 *
 * Why: two cclint writers on one session (two `fix` runs, a `fix` and a
 * `restore`, a cron job and a person) each check the bytes they planned
 * from through their own open handle, which still shows the old file after
 * the other one swapped in the new; the second then renamed over the
 * first's file, and lines a live Claude Code had appended to it in between
 * were lost, with both runs reporting success. With the lock, the second
 * refuses at once; had it waited, what it planned from would no longer be
 * the file anyway.
 *
 * A stale lock (its process gone) is taken over. Throws
 * {@link ConcurrentModificationError} while another live process holds it.
 */
export function lockForWriting(
  port: FsPort,
  dir: string,
  file: string,
  shown: string,
  alive: (pid: number) => boolean = isPidAlive,
): () => void {
  const lock = lockPathFor(dir, file);
  port.mkdirp(dir, 0o700);
  for (let attempt = 0; ; attempt++) {
    try {
      port.writeNewFile(lock, Buffer.from(`${JSON.stringify({ pid: process.pid, file })}\n`), { mode: 0o600 });
      return () => removeQuietly(port, lock);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = lockHolder(port, lock, alive);
    if (holder === undefined && attempt === 0) {
      removeQuietly(port, lock);
      continue;
    }
    // The lock is named: a pid the system has since given to another program keeps it held.
    throw new ConcurrentModificationError(
      `another cclint${holder === undefined ? '' : ` (pid ${holder})`} is writing ${shown}; nothing was written; run this again once it is done (if no cclint is running, delete ${lock})`,
    );
  }
}

/** Writes the intent (fsynced, 0600) and returns the journal's path. Throws when it cannot. */
export function beginJournal(port: FsPort, dir: string, record: JournalRecord): string {
  const journal = path.join(dir, `${record.id}.json`);
  port.mkdirp(dir, 0o700);
  port.writeNewFile(journal, Buffer.from(`${JSON.stringify(record)}\n`), { mode: 0o600 });
  return journal;
}

export type Settled = 'landed' | 'not-landed' | 'changed';

/** Splits bytes into lines, each with its newline (the last one may lack it). */
function linesOf(data: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  for (let at = 0; at < data.length; ) {
    const end = data.indexOf(0x0a, at);
    const next = end === -1 ? data.length : end + 1;
    lines.push(data.subarray(at, next));
    at = next;
  }
  return lines;
}

/**
 * Appends to `record.file` the lines the old inode (kept at `kept`) got past
 * the planned bytes that the file, past `from`, does not hold: those a live
 * appender wrote into the old inode after the rename, which a killed writer
 * had not carried yet. Lines are compared whole (a line the file holds twice
 * counts twice), so lines carried before the kill are not written again.
 * Returns how many bytes it appended.
 */
function carryFromKeptInode(port: FsPort, record: JournalRecord, kept: string, from: number): number {
  let oldHandle: ReadHandle;
  try {
    oldHandle = port.openRead(kept);
  } catch {
    return 0;
  }
  let current: ReadHandle | undefined;
  try {
    if (oldHandle.size() <= record.sizeBefore) return 0;
    current = port.openRead(record.file);
    if (current.ino() === oldHandle.ino()) return 0; // never renamed over: the appends are in the file
    const appended = oldHandle.read(record.sizeBefore, oldHandle.size() - record.sizeBefore);
    const held = new Map<string, number>();
    for (const line of linesOf(current.read(from, Math.max(0, current.size() - from)))) {
      const key = line.toString('latin1').replace(/\n$/, '');
      held.set(key, (held.get(key) ?? 0) + 1);
    }
    const missing: Buffer[] = [];
    for (const line of linesOf(appended)) {
      const key = line.toString('latin1').replace(/\n$/, '');
      const count = held.get(key) ?? 0;
      if (count > 0) held.set(key, count - 1);
      else missing.push(line[line.length - 1] === 0x0a ? line : Buffer.concat([line, Buffer.from('\n')]));
    }
    if (missing.length === 0) return 0;
    const bytes = Buffer.concat(missing);
    port.appendFile(record.file, bytes, { mode: 0o600 });
    return bytes.length;
  } finally {
    oldHandle.close();
    current?.close();
  }
}

/**
 * Settles one journal entry: removes its temp files, audits a fix that
 * landed without its audit line, removes the backup of one that did not.
 * Removes the journal file unless the audit line could not be written.
 */
export function settleJournal(port: FsPort, journal: string, record: JournalRecord): Settled {
  const landed = record.sha256After !== record.sha256Before && prefixIs(port, record.file, record.sizeAfter, record.sha256After);
  const notLanded = !landed && prefixIs(port, record.file, record.sizeBefore, record.sha256Before);
  const kept = keptInodePath(record.file, record.id);
  if (port.exists(kept)) {
    try {
      if (landed || notLanded) {
        // Lines a live session put into the old inode after the rename (see above).
        carryFromKeptInode(port, record, kept, landed ? record.sizeAfter : record.sizeBefore);
      } else {
        // Rewritten by someone since: keep the old inode's bytes beside the backup, outside the projects root.
        const copy = `${record.backup}.old-inode`;
        if (!port.exists(copy)) {
          const handle = port.openRead(kept);
          try {
            port.writeNewFile(copy, handleRange(handle, 0, handle.size()), { mode: 0o600 });
          } finally {
            handle.close();
          }
        }
      }
    } catch {
      return landed ? 'landed' : 'changed'; // the journal and the kept inode stay: the next run tries again
    }
  }
  let siblings: string[] = [];
  try {
    siblings = port.readdir(path.dirname(record.file));
  } catch {
    siblings = [];
  }
  for (const name of siblings) {
    if (isWriterTempName(record.file, name, record.id)) removeQuietly(port, path.join(path.dirname(record.file), name));
  }
  let outcome: Settled;
  if (landed) {
    outcome = 'landed';
    const audited = readAuditLog(port, record.auditLog).some((e) => e.id === record.id);
    if (!audited) {
      try {
        appendAudit(port, record.auditLog, record.entry);
      } catch {
        return outcome; // the journal stays: the next run tries again
      }
    }
  } else if (notLanded) {
    outcome = 'not-landed';
    if (record.backup.endsWith('.jsonl.bak')) removeQuietly(port, record.backup);
  } else {
    outcome = 'changed';
  }
  removeQuietly(port, journal);
  return outcome;
}

export interface Recovery {
  /** Ids of fixes that had landed and were audited now. */
  readonly audited: string[];
  /** Ids of writes that had not landed (cleaned up). */
  readonly abandoned: string[];
}

/**
 * Settles the unfinished journal entries of cclint runs that are gone
 * (killed, crashed, power loss). Entries of a cclint that is still running
 * are left alone.
 */
export function recoverJournals(
  options: Pick<CommitOptions, 'fs' | 'env' | 'cclintHome' | 'cwd' | 'isPidAlive'>,
): Recovery {
  const port = options.fs;
  const dir = journalDir(options);
  const alive = options.isPidAlive ?? isPidAlive;
  const recovery: Recovery = { audited: [], abandoned: [] };
  let names: string[];
  try {
    names = port.readdir(dir);
  } catch {
    return recovery;
  }
  for (const name of names.sort()) {
    // A write lock its run did not release (killed): nobody holds it.
    if (name.endsWith(LOCK_SUFFIX) && lockHolder(port, path.join(dir, name), alive) === undefined) removeQuietly(port, path.join(dir, name));
    if (!name.endsWith('.json')) continue;
    const journal = path.join(dir, name);
    let record: Partial<JournalRecord>;
    try {
      record = JSON.parse(port.readFile(journal).toString('utf8')) as Partial<JournalRecord>;
    } catch {
      // A journal torn by a kill while it was written: nothing had happened yet.
      removeQuietly(port, journal);
      continue;
    }
    if (typeof record.pid === 'number' && record.pid !== process.pid && alive(record.pid)) continue;
    if (record.version !== 1 || typeof record.file !== 'string' || typeof record.id !== 'string' || record.entry === undefined) {
      removeQuietly(port, journal);
      continue;
    }
    const before = readAuditLog(port, record.auditLog ?? '').some((e) => e.id === record.id);
    const outcome = settleJournal(port, journal, record as JournalRecord);
    if (outcome === 'landed' && !before) recovery.audited.push(record.id);
    if (outcome === 'not-landed') recovery.abandoned.push(record.id);
  }
  return recovery;
}
