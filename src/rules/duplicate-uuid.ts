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
 * body goes, and stays in the backup). Until then the older body, when its
 * message differs, counts as a message resume loses (`resume.total`). Genuinely different records: give the
 * later one a new uuid, derived deterministically from the old one and its
 * line, and re-point the rows that belong with it: a row naming the
 * shared uuid, written after that copy, whose tool results answer that
 * copy's tool call, that continues that copy's API response, or that comes
 * before the next copy (a row names a parent that exists when it is
 * written). Unsafe: which copy a row meant is inferred. The
 * rename comes before any relink of the rows around it (`cclint fix`
 * resolves duplicates first), so a row that lost its parent next to the
 * renamed copy is relinked to the copy's new uuid, not to the first copy.
 *
 * ## Known false positives
 * Files whose uuids were replaced by placeholders (normalised test data).
 */
import type { RecordSummary } from '../core/records.js';
import type { Renamed } from '../core/repair-targets.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix, RecordEdit } from '../core/types.js';
import { deleteLinesFix, setFieldsEdits } from '../core/fix-builders.js';
import { defineRule, shortId } from './rule.js';

export { derivedUuid } from '../core/repair-targets.js';

/** The record's body, as a digest of its compact JSON (any depth: a hostile record can be nested too deep for JSON.stringify). */
function bodyOf(index: SessionIndex, r: RecordSummary): string {
  return index.bodyDigest(r);
}

function renameFix(index: SessionIndex, renamed: Renamed): Fix {
  const { record: copy, uuid: fresh, children } = renamed;
  return {
    title: `Give the later record the new uuid ${fresh.slice(0, 8)} and re-point the ${children.length} row(s) that belong with it`,
    applicability: 'unsafe',
    edits: () => {
      const edits: RecordEdit[] = [...setFieldsEdits(index, copy, { uuid: fresh })];
      for (const r of children) if (r.line !== copy.line) edits.push(...setFieldsEdits(index, r, { parentUuid: fresh }));
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
  check({ index, resume, report }) {
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
          const renamed = resume.renamed.find((r) => r.record === copy);
          const fix = !rewrite
            ? renamed === undefined ? undefined : renameFix(index, renamed)
            : !sharedLines.has(previous.line) && i === group.length - 1
              ? {
                  ...deleteLinesFix(index, group.slice(0, -1).map((g) => g.line), 'Delete the superseded earlier body (Claude Code already reads this one)', 'unsafe'),
                  // The earlier body is a message of the intended conversation that resume already loses; deleting it is the point.
                  changesContent: true,
                }
              : undefined;
          report({ messageId: 'different', data, record: copy, fix });
        }
      });
    }
  },
});
