/**
 * orphan-root
 *
 * ## What it detects
 * `parentUuid: null` on a record that is not an expected root. Expected roots
 * are: the first record of the conversation and anything written before its
 * first message (SessionStart hooks, local commands); every compact boundary
 * (it carries `logicalParentUuid`); a 1.0.x inline sidechain (Task) prompt; a
 * prompt typed again right after `[Request interrupted by user…]`; and the
 * first record of another session id copied into the file.
 *
 * ## Why it matters
 * Claude Code's chain walk stops at a null parent. A non-boundary null parent
 * in mid-file silently becomes the start of the resumed history, and every
 * message before it is dropped.
 *
 * ## Fix
 * Relink to the nearest earlier main-chain user/assistant record in the same
 * compaction segment. Unsafe: a null parent can also mean the person meant
 * to start over, which only they know. A compact boundary is never touched:
 * linking it to `logicalParentUuid` would pull the whole pre-compaction
 * history back into the context window.
 *
 * ## Known false positives
 * Hand-edited files that start several conversations in one file with the
 * same session id; tools that strip `parentUuid` to null on export.
 */
import { bridgeTarget, expectedRoot } from '../core/analysis.js';
import { relinkFix } from '../core/fix-builders.js';
import { defineRule } from './rule.js';

export default defineRule({
  meta: {
    id: 'orphan-root',
    description: 'parentUuid may be null only on an expected root',
    severity: 'error',
    fixable: 'unsafe',
    messages: {
      cutsHistory: '{type} record has parentUuid null in mid-file; resume starts here and drops {lost} earlier message(s)',
      orphan: '{type} record has parentUuid null in mid-file; it is cut off from the conversation before it',
    },
  },
  check({ index, resume, report }) {
    for (const record of index.records) {
      if (record.parentUuid !== null || !index.isChainRow(record)) continue;
      if (index.byUuid.get(record.uuid as string) !== record) continue;
      if (expectedRoot(index, record) !== undefined) continue;
      const target = bridgeTarget(index, record);
      const fix = target === undefined ? undefined : relinkFix(index, record, target, 'unsafe');
      const type = record.subtype === undefined ? record.type : `${record.type}/${record.subtype}`;
      if (resume.end.kind === 'root' && resume.end.at === record && resume.total > resume.loaded) {
        report({ messageId: 'cutsHistory', data: { type, lost: resume.total - resume.loaded }, record, fix });
      } else {
        report({ messageId: 'orphan', data: { type }, record, fix });
      }
    }
  },
});
