/**
 * parent-cycle
 *
 * ## What it detects
 * Following `parentUuid` from a record comes back to where it started. The
 * finding is on the record whose link closes the cycle. Claude Code writes a
 * parent before its child, so in a cycle the odd link out is the one that
 * points forward in the file (to a record written later); when several do,
 * the last such member is reported, and when none does, the member written
 * last.
 *
 * ## Why it matters
 * Claude Code 2.1.330 stops at the repeat and resumes a partial history;
 * 2.0.x and older loop forever on resume. Cycles come from
 * reused uuids (`saved_hook_context`) and hand edits.
 *
 * ## Fix
 * Break the cycle at the closing link: relink that record to the nearest
 * earlier main-chain user/assistant record outside the cycle, in the same
 * compaction segment. Unsafe: which link was wrong is a judgement.
 *
 * ## Known false positives
 * None known: a cycle is never a legitimate shape.
 */
import { previousConversational, reaches } from '../core/analysis.js';
import type { RecordSummary } from '../core/records.js';
import { relinkFix } from '../core/fix-builders.js';
import { defineRule, shortId } from './rule.js';

export default defineRule({
  meta: {
    id: 'parent-cycle',
    description: 'Following parentUuid must never come back to the same record',
    severity: 'error',
    fixable: 'unsafe',
    messages: {
      cycle: 'parentUuid {parent} closes a cycle of {size} record(s); resume stops at the repeat',
    },
  },
  check({ index, report }) {
    // Colour walk over the effective records, by ordinal: 0 new, 1 on the
    // current path, 2 done.
    const state = new Uint8Array(index.records.length);
    for (const start of index.effectiveRecords()) {
      if (start.uuid === undefined || state[start.ordinal] !== 0) continue;
      const path: RecordSummary[] = [];
      let current: RecordSummary | undefined = start;
      while (current !== undefined && state[current.ordinal] === 0) {
        state[current.ordinal] = 1;
        path.push(current);
        current = index.parentOf(current);
      }
      if (current !== undefined && state[current.ordinal] === 1) {
        const members = path.slice(path.indexOf(current));
        const forward = members.filter((m) => (index.parentOf(m)?.ordinal ?? -1) > m.ordinal);
        const closer = (forward.length > 0 ? forward : members).reduce((a, b) => (b.ordinal > a.ordinal ? b : a));
        const inCycle = new Set(members);
        let target = previousConversational(index, closer);
        // Outside the cycle, in the same segment, and not hanging off the
        // cycle itself (that would close a new one).
        // An older body of a reused uuid is no target: its uuid is the link
        // being replaced.
        while (
          target !== undefined &&
          (inCycle.has(target) || index.byUuid.get(target.uuid as string) !== target || reaches(index, target, closer))
        ) {
          target = previousConversational(index, target);
        }
        if (target !== undefined && index.segmentOf(target) !== index.segmentOf(closer)) target = undefined;
        report({
          messageId: 'cycle',
          data: { parent: shortId(closer.parentUuid), size: members.length },
          record: closer,
          fix: target === undefined ? undefined : relinkFix(index, closer, target, 'unsafe'),
        });
      }
      for (const r of path) state[r.ordinal] = 2;
    }
  },
});
