/**
 * The audit log, `$CCLINT_HOME/audit.jsonl`: one line per fix or restore,
 * with hashes and line numbers, never record bodies.
 */
import { randomBytes } from 'node:crypto';
import { describeFsError } from '../core/discovery.js';
import { PathError } from '../core/errors.js';
import { sha256 } from '../core/hash.js';
import type { FsPort } from './fs-port.js';
import type { RecordEdit } from '../core/types.js';
import type { AppliedFix, AuditEdit, AuditEntry } from './types.js';

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


/** Appends one entry as a line (fsynced; the log is created 0600). */
export function appendAudit(port: FsPort, auditLog: string, entry: AuditEntry): void {
  // A log whose last line was torn (a crash while appending, a hand edit)
  // gets a line break first: glued to it, this entry could not be read, and
  // the write it records could not be undone.
  const torn = !endsWithLineBreak(port, auditLog);
  port.appendFile(auditLog, `${torn ? '\n' : ''}${JSON.stringify(entry)}\n`, { mode: 0o600 });
}

/** Whether `file` is missing, empty, or ends with `\n`. */
function endsWithLineBreak(port: FsPort, file: string): boolean {
  let handle;
  try {
    handle = port.openRead(file);
  } catch {
    return true; // created by the append
  }
  try {
    const size = handle.size();
    return size === 0 || handle.read(size - 1, 1)[0] === 0x0a;
  } finally {
    handle.close();
  }
}

/**
 * Whether the first bytes of a file are those of an audit log: an entry's
 * line starts with its `id`, and names the file's hashes and backup before
 * its fixes, so 4 KB tell it from a transcript (whose rows never start with
 * `"id"`) or any other file, which cclint must not append to.
 */
export function isAuditLogHead(head: string): boolean {
  const first = head.replace(/^\uFEFF/, '').trimStart();
  return first.startsWith('{"id":"') && first.includes('"sha256Before":"') && first.includes('"backup":"');
}

/** How messages name an audited write: `fix <id>`, `rename <id>` (a title row) or `restore <id>`. */
export function entryLabel(entry: Pick<AuditEntry, 'id' | 'kind' | 'fixes'>): string {
  return `${writeKind(entry)} ${entry.id}`;
}

/** Which command made the write an entry records (a rename is audited as a fix of the `rename` pseudo-rule). */
export function writeKind(entry: Pick<AuditEntry, 'kind' | 'fixes'>): 'fix' | 'rename' | 'restore' {
  if (entry.kind === 'restore') return 'restore';
  return entry.fixes.length > 0 && entry.fixes.every((f) => f.ruleId === 'rename') ? 'rename' : 'fix';
}

/** Every parseable entry of an audit log, oldest first; [] when there is no log. */
export function readAuditLog(port: FsPort, file: string): AuditEntry[] {
  let bytes: Buffer;
  try {
    bytes = port.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new PathError(`cannot read the audit log ${describeFsError(error, file)}`);
  }
  const entries: AuditEntry[] = [];
  // Line by line from the bytes: the log as one string could not be made
  // past V8's longest string (about 512 MB), and then no fix in it could be
  // undone. A byte-order mark an editor put first would hide the first entry.
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (start < bytes.length) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    const entry = entryOf(bytes, start, end);
    if (entry !== undefined) entries.push(entry);
    start = end + 1;
  }
  return entries;
}

/** The entry on bytes `start` to `end`, or undefined for a blank line, a torn one (a crash while appending) or anything else. */
function entryOf(bytes: Buffer, start: number, end: number): AuditEntry | undefined {
  let first = start;
  while (first < end && (bytes[first] === 0x20 || bytes[first] === 0x09 || bytes[first] === 0x0d)) first++;
  // Not an object: not decoded at all (a line of junk can be longer than any string).
  if (first >= end || bytes[first] !== 0x7b) return undefined;
  try {
    const value = JSON.parse(bytes.toString('utf8', first, end)) as Partial<AuditEntry> | null;
    if (
      value !== null &&
      typeof value === 'object' &&
      typeof value.id === 'string' &&
      typeof value.file === 'string' &&
      typeof value.backup === 'string' &&
      typeof value.sha256Before === 'string' &&
      typeof value.sha256After === 'string'
    ) {
      return value as AuditEntry;
    }
  } catch {
    // Torn or not JSON: skipped.
  }
  return undefined;
}
