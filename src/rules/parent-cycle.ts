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
 * `claude --resume` (2.1.330) stops at the repeat and looks for a stand-in
 * written at most 5 s earlier; when it finds one, or nothing lies beyond
 * the repeat, the cycle costs nothing today (a warning), otherwise the
 * history beyond the repeat is left out (an error). 2.0.x and older loop
 * forever on resume. Cycles come from reused uuids (`saved_hook_context`)
 * and hand edits.
 *
 * ## Fix
 * Break the cycle at the closing link: relink that record to the row it
 * continues, outside the cycle, chosen as for `phantom-parent`. Safe when
 * its content says which row that is (the tool call its result answers,
 * the response it continues); unsafe otherwise, since which link was wrong
 * is a judgement.
 *
 * ## Known false positives
 * None known: a cycle is never a legitimate shape.
 */
import { relinkFixOf } from '../core/fix-builders.js';
import { parentCycles } from '../core/repair-targets.js';
import { defineRule, shortId } from './rule.js';

export default defineRule({
  meta: {
    id: 'parent-cycle',
    description: 'Following parentUuid must never come back to the same record',
    severity: 'error',
    fixable: 'safe',
    messages: {
      cycle: 'parentUuid {parent} closes a cycle of {size} record(s); resume stops at the repeat and drops {lost} message(s)',
      bridged: 'parentUuid {parent} closes a cycle of {size} record(s); resume gets past the repeat and loses nothing today',
    },
  },
  check({ index, resume, report }) {
    for (const { closer, members } of parentCycles(index)) {
      const choice = resume.repairsOf(closer).find((r) => r.kind === 'cycle')?.choice;
      const sure = choice !== undefined && (choice.reason === 'tool-call' || choice.reason === 'same-response');
      const fix = relinkFixOf(index, closer, choice, sure ? 'safe' : 'unsafe');
      const data = { parent: shortId(closer.parentUuid), size: members.length, lost: resume.total - resume.loaded };
      if (resume.total > resume.loaded) report({ messageId: 'cycle', data, record: closer, fix });
      else report({ messageId: 'bridged', data, record: closer, severity: 'warning', fix });
    }
  },
});
