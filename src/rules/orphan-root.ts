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
 * Relink to the row the record continues, chosen as for `phantom-parent`
 * (the tool call it answers, the response it continues, the rewind point of
 * a prompt typed again, the row resume would bridge to, the previous row;
 * the previous row first when it is stamped within 5 s of the record).
 * Safe for a row that cannot start a conversation: a tool result, a row of
 * a response already under way, a row written within 5 s of the row it
 * continues. Unsafe for a typed prompt: a null parent can also mean the
 * person meant to start over, which only they know. A compact boundary is
 * never touched: linking it to `logicalParentUuid` would pull the whole
 * pre-compaction history back into the context window.
 *
 * ## Known false positives
 * Hand-edited files that start several conversations in one file with the
 * same session id; tools that strip `parentUuid` to null on export.
 */
import { expectedRoot } from '../core/analysis.js';
import { relinkFixOf } from '../core/fix-builders.js';
import { isTypedPrompt } from '../core/repair-targets.js';
import { defineRule } from './rule.js';

export default defineRule({
  meta: {
    id: 'orphan-root',
    description: 'parentUuid may be null only on an expected root',
    severity: 'error',
    fixable: 'safe',
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
      const choice = resume.repairsOf(record)[0]?.choice;
      // Only a typed prompt can mean "start over"; anything else, or a
      // prompt written within seconds of the row it continues, goes on.
      const surely = choice !== undefined && (!isTypedPrompt(record) || choice.reason === 'bridge');
      const fix = relinkFixOf(index, record, choice, surely ? 'safe' : 'unsafe');
      const type = record.subtype === undefined ? record.type : `${record.type}/${record.subtype}`;
      if (resume.end.kind === 'root' && resume.end.at === record && resume.total > resume.loaded) {
        report({ messageId: 'cutsHistory', data: { type, lost: resume.total - resume.loaded }, record, fix });
      } else {
        report({ messageId: 'orphan', data: { type }, record, fix });
      }
    }
  },
});
