/**
 * misplaced-parent
 *
 * ## What it detects
 * A row whose content says which row it continues while its `parentUuid`,
 * which does exist, names another one: a tool result whose parent is not
 * the row holding its tool call (nor another row or result of that API
 * response); a row of an API response already under way (the latest
 * assistant row before it has its `message.id`; an id that comes back after
 * another response is a new response reusing it) whose parent is outside
 * that response; the first row of
 * a response whose parent was written before the user row it answers
 * (unless the stamps put the row before that user row or its parent after
 * it: rows moved out of place by hand, not a link past what lies between).
 * Hooks, attachments and progress rows between a row and its parent are
 * looked through. Rows that lost their `message.id` (a third-party rewrite
 * such as the hive-mind extractor's) are told apart by the run of assistant
 * rows written one under the other, as one response's rows are: a result
 * under the results of that run's later calls is where Claude Code puts it.
 * In the real sessions of the corpus every such link holds.
 *
 * ## Why it matters
 * `claude --resume` follows the link as written. Pointing back past rows
 * that belong between, it skips them: the turns in between are silently
 * left out of the resumed conversation, or the conversation jumps to a
 * branch it was never on. An error when resume loses messages because of
 * it, a warning otherwise.
 *
 * ## Fix
 * Relink to the row the content names: the tool call's row, the previous
 * row of the same response (chosen as for `phantom-parent`), or, for the
 * first row of a response, the user row it answers (the last written before
 * it: any earlier row would be found misplaced again). Safe when the content says it
 * (a tool call, a shared `message.id`) and the target has no other child on
 * the main chain; unsafe otherwise.
 *
 * ## Known false positives
 * None in real sessions. A hand-edited transcript that moved a tool result
 * on purpose.
 */
import { relinkFixOf } from '../core/fix-builders.js';
import { defineRule, shortId } from './rule.js';

export default defineRule({
  meta: {
    id: 'misplaced-parent',
    description: 'parentUuid must name the row a record continues',
    severity: 'error',
    fixable: 'safe',
    messages: {
      toolResult: 'parentUuid {parent} names line {parentLine}, but this tool result answers the call on line {callLine}; resume skips what lies between',
      response: 'parentUuid {parent} names line {parentLine}, but this row continues the response on line {callLine}; resume skips what lies between',
      answer: 'parentUuid {parent} names line {parentLine}, written before the user row on line {callLine} this response answers; resume skips what lies between',
    },
  },
  check({ index, resume, report }) {
    for (const repair of resume.repairs) {
      if (repair.kind !== 'misplaced' || repair.choice === undefined) continue;
      const { record, choice } = repair;
      const parent = index.parentOf(record);
      const messageId = record.toolResultIds.length > 0 ? 'toolResult' : choice.reason === 'same-response' ? 'response' : 'answer';
      const sure = choice.reason === 'tool-call' || choice.reason === 'same-response';
      report({
        messageId,
        data: { parent: shortId(record.parentUuid), parentLine: parent?.line ?? 0, callLine: choice.target.line },
        record,
        severity: resume.total > resume.loaded ? undefined : 'warning',
        fix: relinkFixOf(index, record, choice, sure ? 'safe' : 'unsafe'),
      });
    }
  },
});
