/**
 * What `fix --dry-run --format json` says about a plan: hashes, resume
 * figures, and for each edit only the fields it changes, each value cut to
 * a short excerpt. A plan report is shared in CI logs and bug reports, so it
 * never carries a whole record; the backup is the only full copy.
 */
import type { RecordEdit } from '../core/types.js';
import { countBySeverity } from '../core/types.js';
import { sha256 } from '../core/hash.js';
import { parseObject } from './diff.js';
import type { FilePlan } from './types.js';

export interface FieldChange {
  /** Dotted path of the changed field (`parentUuid`, `message.content`). */
  readonly path: string;
  /**
   * The old and new values: short ones whole, a long string cut with its
   * length, a long object or array as a cut JSON text; absent when the
   * field did not exist on that side.
   */
  readonly before?: unknown;
  readonly after?: unknown;
}

/** Longest string (or JSON text of an object) a plan shows whole. */
const VALUE_CHARS = 80;

function planValue(value: unknown): unknown {
  const text = typeof value === 'string' ? value : value !== null && typeof value === 'object' ? JSON.stringify(value) : undefined;
  if (text === undefined || text.length <= VALUE_CHARS) return value;
  return `${text.slice(0, VALUE_CHARS)}…(${text.length} chars)`;
}

export interface EditReport {
  readonly kind: RecordEdit['kind'];
  readonly line: number;
  /** sha256 of the old line (replace, delete) and of the new lines joined with `\n` (replace, insert). */
  readonly sha256Before?: string | undefined;
  readonly sha256After?: string | undefined;
  /** The record's uuid (the old one for a replace or delete), when the line is a record. */
  readonly uuid?: string | undefined;
  /** For a replace: the fields it changes; for an insert: the new records' `type` and `uuid`. */
  readonly changes?: readonly FieldChange[] | undefined;
  readonly lines?: number | undefined;
}

type Obj = Record<string, unknown>;

function isPlainObject(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The fields that differ between two records, descending into objects (not
 * arrays) so a changed `message.content` does not show the whole message.
 * Iterative, so a deeply nested record cannot exhaust the stack.
 */
export function changedFields(before: Obj, after: Obj): FieldChange[] {
  const changes: FieldChange[] = [];
  const stack: Array<{ prefix: string; a: Obj; b: Obj }> = [{ prefix: '', a: before, b: after }];
  while (stack.length > 0) {
    const { prefix, a, b } = stack.pop() as { prefix: string; a: Obj; b: Obj };
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys.reverse()) {
      const path = `${prefix}${key}`;
      const va = a[key];
      const vb = b[key];
      if (isPlainObject(va) && isPlainObject(vb)) {
        stack.push({ prefix: `${path}.`, a: va, b: vb });
        continue;
      }
      if (JSON.stringify(va) === JSON.stringify(vb)) continue;
      changes.push({
        path,
        ...(key in a ? { before: planValue(va) } : {}),
        ...(key in b ? { after: planValue(vb) } : {}),
      });
    }
  }
  return changes;
}

function uuidOf(record: Obj | undefined): string | undefined {
  return typeof record?.uuid === 'string' ? record.uuid : undefined;
}

/** One edit, reduced to what it changes. */
export function reportEdit(edit: RecordEdit): EditReport {
  switch (edit.kind) {
    case 'delete':
      return { kind: 'delete', line: edit.line, sha256Before: sha256(edit.before), uuid: uuidOf(parseObject(edit.before)) };
    case 'insertAfter':
      return {
        kind: 'insertAfter',
        line: edit.line,
        sha256After: sha256(edit.after.join('\n')),
        lines: edit.after.length,
        changes: edit.after.map((text) => {
          const record = parseObject(text);
          return { path: '(new record)', after: { type: planValue(record?.type), uuid: planValue(record?.uuid) } };
        }),
      };
    case 'replace': {
      const old = parseObject(edit.before);
      const [single, ...more] = edit.after;
      const next = single !== undefined && more.length === 0 ? parseObject(single) : undefined;
      const hashes = { sha256Before: sha256(edit.before), sha256After: sha256(edit.after.join('\n')) };
      if (old !== undefined && next !== undefined) {
        return { kind: 'replace', line: edit.line, ...hashes, uuid: uuidOf(old), lines: 1, changes: changedFields(old, next) };
      }
      // A damaged line recovered into records, or a record split in two: name them, show no text.
      return {
        kind: 'replace',
        line: edit.line,
        ...hashes,
        uuid: uuidOf(old),
        lines: edit.after.length,
        changes: edit.after.map((text) => {
          const record = parseObject(text);
          return { path: '(record)', after: record === undefined ? `(${text.length} chars)` : { type: planValue(record.type), uuid: planValue(record.uuid) } };
        }),
      };
    }
  }
}

/** The JSON view of one plan. */
export function planReport(plan: FilePlan): object {
  return {
    filePath: plan.file.displayPath,
    sessionId: plan.file.layoutSessionId,
    sha256Before: plan.sha256Before,
    sha256After: plan.sha256After,
    resumeBefore: plan.resumeBefore,
    resumeAfter: plan.resumeAfter,
    scoreBefore: plan.scoreBefore,
    scoreAfter: plan.scoreAfter,
    applied: plan.applied.map((a) => ({
      ruleId: a.ruleId,
      title: a.title,
      applicability: a.applicability,
      pass: a.pass,
      edits: a.edits.map(reportEdit),
    })),
    skipped: plan.skipped,
    remaining: { ...countBySeverity(plan.remaining), infoCount: plan.remainingInfo },
  };
}
