/**
 * `cclint restore --list`: the recent entries of the audit log, newest
 * first, each with what it changed and where its file stands now, so a
 * person can pick what to undo without reading `audit.jsonl`.
 */
import type { FsPort } from './fs-port.js';
import { isUndone, readAuditLog } from './restore.js';
import type { AuditEntry } from './types.js';
import { hashPrefix } from './journal.js';
import { writeKind } from './audit.js';

/** Where an entry's file stands now. */
export type FileState =
  /** It still holds the bytes the entry wrote: `restore <id>` undoes it. */
  | 'as-written'
  /**
   * It holds the bytes the entry wrote followed by lines added since (a live
   * session went on): `restore <id>` undoes it and keeps those lines.
   */
  | 'grown'
  /** It holds the bytes from before the entry (undone by hand or by a restore). */
  | 'before'
  /** Something else changed it since: a restore would refuse. */
  | 'changed'
  /** A symbolic link, a named pipe or a folder stands there now: a restore would refuse. */
  | 'replaced'
  | 'missing';

export interface AuditListRow {
  readonly id: string;
  readonly time: string;
  readonly kind: 'fix' | 'rename' | 'restore';
  readonly file: string;
  /** `phantom-parent ×2, invalid-json`, or `restores <id>`. */
  readonly what: string;
  readonly undone: boolean;
  readonly state: FileState;
  /** Present (true) when the entry's backup is no longer where it was written: `restore <id>` cannot undo it. */
  readonly backupMissing?: true;
}

function whatOf(entry: AuditEntry): string {
  if (entry.kind === 'restore') return `restores ${entry.restores ?? '?'}`;
  const counts = new Map<string, number>();
  for (const fix of entry.fixes) counts.set(fix.ruleId, (counts.get(fix.ruleId) ?? 0) + 1);
  const parts = [...counts].map(([rule, n]) => (n > 1 ? `${rule} ×${n}` : rule));
  return parts.length > 0 ? parts.join(', ') : 'no fixes';
}

function stateOf(port: FsPort, entry: AuditEntry, hashes: Map<string, string | undefined>): FileState {
  let now: ReturnType<FsPort['lstat']>;
  try {
    now = port.lstat(entry.file);
  } catch {
    return 'missing';
  }
  if (now.isSymbolicLink === true || !now.isFile) return 'replaced';
  if (!hashes.has(entry.file)) {
    let hash: string | undefined;
    try {
      // In pieces: a session can be hundreds of MB.
      const handle = port.openRead(entry.file);
      try {
        hash = hashPrefix(handle, handle.size());
      } finally {
        handle.close();
      }
    } catch {
      hash = undefined;
    }
    hashes.set(entry.file, hash);
  }
  const hash = hashes.get(entry.file);
  if (hash === undefined) return 'missing';
  if (hash === entry.sha256After) return 'as-written';
  if (hash === entry.sha256Before) return 'before';
  return grewSince(port, entry) ? 'grown' : 'changed';
}

/** Whether the file starts with the bytes the entry wrote and has more after them (only those bytes are read, in pieces). */
function grewSince(port: FsPort, entry: AuditEntry): boolean {
  if (entry.sizeAfter === undefined) return false;
  try {
    const handle = port.openRead(entry.file);
    try {
      return handle.size() > entry.sizeAfter && hashPrefix(handle, entry.sizeAfter) === entry.sha256After;
    } finally {
      handle.close();
    }
  } catch {
    return false;
  }
}

/** The newest `limit` entries of the audit log, newest first. */
export function listAudit(port: FsPort, auditLog: string, limit: number): AuditListRow[] {
  const entries = readAuditLog(port, auditLog);
  const hashes = new Map<string, string | undefined>(); // each file is hashed once
  return entries
    .slice(-limit)
    .reverse()
    .map((entry) => ({
      id: entry.id,
      time: entry.time,
      kind: writeKind(entry),
      file: entry.file,
      what: whatOf(entry),
      undone: isUndone(entry, entries),
      state: stateOf(port, entry, hashes),
      ...(port.exists(entry.backup) ? {} : { backupMissing: true as const }),
    }));
}
