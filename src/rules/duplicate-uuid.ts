/**
 * duplicate-uuid
 *
 * ## What it detects
 * Two or more lines of one file that carry the same `uuid`. An identical
 * copy is a warning; a different body under the same uuid is an error.
 * Duplicates across files are normal (a resumed session copies its prefix)
 * and are not reported.
 *
 * ## Why it matters
 * Claude Code keeps one record per uuid: the later body silently replaces
 * the earlier one at the earlier position, so the chain can change under
 * the person's feet. Copies also inflate token and cost totals in usage
 * tools (for example https://github.com/ryoppippi/ccusage/issues/994).
 *
 * ## Fix
 * Identical later copy: delete it (safe; the first copy stays where
 * Claude Code keeps it, and nothing is lost). A different body of the same
 * record (same type and parent: a re-write) supersedes the earlier one, as
 * Claude Code already reads it: delete the earlier line (unsafe; the older
 * body goes, and stays in the backup). Genuinely different records: give the
 * later one a new uuid, derived deterministically from the old one and its
 * line, and re-point the records written after it that name the old uuid
 * (unsafe: which copy a child meant is inferred from file order).
 *
 * ## Known false positives
 * Files whose uuids were replaced by placeholders (normalised test data).
 */
import { createHash } from 'node:crypto';
import type { RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix, RecordEdit } from '../core/types.js';
import { deleteLinesFix, setFieldsEdits } from '../core/fix-builders.js';
import { defineRule, shortId } from './rule.js';

/** A v4-shaped uuid derived from the old uuid and line: stable across runs. */
export function derivedUuid(uuid: string, line: number): string {
  const h = createHash('sha256').update(`${uuid}:${line}`).digest('hex');
  const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function bodyOf(index: SessionIndex, r: RecordSummary): string {
  return JSON.stringify(index.recordObject(r) ?? null);
}

function renameFix(index: SessionIndex, copy: RecordSummary, next: RecordSummary | undefined): Fix {
  const uuid = copy.uuid as string;
  const fresh = derivedUuid(uuid, copy.line);
  return {
    title: `Give the later record the new uuid ${fresh.slice(0, 8)} and re-point its children`,
    applicability: 'unsafe',
    edits: () => {
      const edits: RecordEdit[] = [...setFieldsEdits(index, copy, { uuid: fresh })];
      for (const r of index.records) {
        if (r.ordinal <= copy.ordinal || (next !== undefined && r.ordinal >= next.ordinal)) continue;
        if (r.parentUuid === uuid && r.line !== copy.line) edits.push(...setFieldsEdits(index, r, { parentUuid: fresh }));
      }
      return edits;
    },
  };
}

export default defineRule({
  meta: {
    id: 'duplicate-uuid',
    description: 'A uuid may appear on one line of a file only',
    severity: 'error',
    fixable: 'safe',
    messages: {
      identical: 'uuid {uuid} is an identical copy of line {first}; Claude Code keeps one',
      different: 'uuid {uuid} is also on line {first} with a different body; resume silently keeps this body at line {first}',
    },
  },
  check({ index, report }) {
    const sharedLines = new Set(index.invalidLines.filter((l) => l.recoveredRecords > 1).map((l) => l.line));
    for (const [uuid, group] of index.duplicates) {
      const first = group[0] as RecordSummary;
      const firstBody = bodyOf(index, first);
      group.forEach((copy, i) => {
        if (i === 0) return;
        const identical = bodyOf(index, copy) === firstBody;
        const data = { uuid: shortId(uuid), first: first.line };
        if (identical) {
          const alone = !sharedLines.has(copy.line);
          report({
            messageId: 'identical',
            data,
            record: copy,
            severity: 'warning',
            fix: alone ? deleteLinesFix(index, [copy.line], 'Delete the identical copy', 'safe') : undefined,
          });
        } else {
          const previous = group[i - 1] as RecordSummary;
          const rewrite = previous.type === copy.type && previous.parentUuid === copy.parentUuid;
          const fix = !rewrite
            ? renameFix(index, copy, group[i + 1])
            : !sharedLines.has(previous.line) && i === group.length - 1
              ? deleteLinesFix(index, group.slice(0, -1).map((g) => g.line), 'Delete the superseded earlier body (Claude Code already reads this one)', 'unsafe')
              : undefined;
          report({ messageId: 'different', data, record: copy, fix });
        }
      });
    }
  },
});
