/**
 * phantom-parent
 *
 * ## What it detects
 * A record whose `parentUuid` names a uuid that exists nowhere it could:
 * not in this file, not in the main session of a subagent file, not in a
 * subagent file of this session, and not in another session of the same
 * project folder (the session a copied or continued conversation came from).
 * A `parentUuid` that is neither a string nor null is one too, as the real
 * CLI reads it: a truthy value (`{}`, `5`, `true`) is looked up and not
 * found, a falsy one (`false`, `0`) ends the walk as `""` does; the finding
 * shows it as `‹{…}›`, `‹5›` or `""`.
 *
 * ## Why it matters
 * `claude --resume` walks `parentUuid` back from the last message to rebuild
 * the conversation. At a phantom parent it looks for a stand-in written at
 * most 5 s earlier; when there is none it stops, and everything before the
 * gap is silently left out of the resumed conversation (the "resume only
 * shows the last few messages" reports,
 * https://github.com/anthropics/claude-code/issues/22526 and
 * https://github.com/anthropics/claude-code/issues/58554). A gap resume
 * bridges is a warning; a gap that cuts history is an error, and so is a
 * bridge to the wrong row: one from before a compaction (it brings the
 * compacted history back) or one of an attempt abandoned at a rewind (it
 * sends that attempt). A subagent root whose main session file is simply
 * absent is info: the link cannot be checked, and subagent files are not
 * resumed.
 *
 * ## Fix
 * Relink to the row the record continues: the assistant row holding the
 * tool call its tool result answers; the previous row of the API response
 * it continues (same `message.id`); for a prompt typed again at a rewind,
 * the row the first attempt hangs from (never the tip of the abandoned
 * attempt); else the latest row at most 5 s older (the row resume bridges to
 * today), then the previous row in file order; but the previous row goes
 * first, the bridge offered beside it, when it is stamped within 5 s of the
 * record (either side): rows are stamped slightly out of the order they are
 * written, and the bridge, taking the latest stamp, skips the row the record
 * was written after. Only user and assistant rows
 * on the same side and in the same compaction segment qualify, never a
 * descendant (no cycles), never a row of an abandoned attempt. Safe when the
 * evidence agrees and the target has no other child on the main chain;
 * unsafe when the rows disagree (both are offered to choose from) or the
 * relink creates a fork. No fix when no row qualifies.
 *
 * ## Known false positives
 * A parent that lives in a file outside the checked paths (check a whole
 * project folder to resolve cross-file links). Sidechain rows of 1.0.x
 * sessions whose Task prompt was never written are reported as warnings.
 */
import { isMainChainRow } from '../core/analysis.js';
import { relinkFixOf } from '../core/fix-builders.js';
import { abandonedAttemptOf } from '../core/repair-targets.js';
import { defineRule, shortId } from './rule.js';

export default defineRule({
  meta: {
    id: 'phantom-parent',
    description: 'parentUuid must name a record that exists',
    severity: 'error',
    fixable: 'safe',
    messages: {
      cutsHistory: 'parentUuid {parent} is not in this session; resume stops here and drops {lost} earlier message(s)',
      missing: 'parentUuid {parent} is not in this session; the records before it are cut off from this branch',
      bridged: 'parentUuid {parent} is not in this session; resume bridges it to {standIn}, written {gap} ms earlier',
      bridgedAcross: 'parentUuid {parent} is not in this session; resume bridges it to {standIn}, from before a compaction, and brings that history back',
      bridgedAbandoned: 'parentUuid {parent} is not in this session; resume bridges it to {standIn}, in an attempt abandoned at a rewind, and sends that attempt',
      sidechain: 'parentUuid {parent} of a sidechain record is not in this session',
      mainMissing: 'parentUuid {parent} points into the main session, whose file was not found',
    },
  },
  check({ index, resume, report }) {
    for (const record of index.records) {
      const parent = record.parentUuid;
      if (typeof parent !== 'string' || index.byUuid.has(parent) || !index.isChainRow(record)) continue;
      if (index.byUuid.get(record.uuid as string) !== record) continue; // a duplicate's older body
      const external = index.externalParent(parent);
      if (external !== undefined) {
        if (external.kind === 'main-missing') {
          report({ messageId: 'mainMissing', data: { parent: shortId(parent) }, record, severity: 'info' });
        }
        continue;
      }
      const choice = resume.repairsOf(record)[0]?.choice;
      const fix = relinkFixOf(index, record, choice);
      if (!isMainChainRow(index, record)) {
        report({ messageId: 'sidechain', data: { parent: shortId(parent) }, record, severity: 'warning', fix });
        continue;
      }
      const standIn = resume.standIn(record);
      if (standIn !== undefined && index.segmentOf(standIn) < index.segmentOf(record)) {
        report({ messageId: 'bridgedAcross', data: { parent: shortId(parent), standIn: shortId(standIn.uuid) }, record, fix });
        continue;
      }
      const attempt = standIn === undefined ? -1 : abandonedAttemptOf(index, standIn);
      if (attempt !== -1 && abandonedAttemptOf(index, record) !== attempt) {
        report({ messageId: 'bridgedAbandoned', data: { parent: shortId(parent), standIn: shortId((standIn as { uuid?: string }).uuid) }, record, fix });
        continue;
      }
      if (standIn !== undefined) {
        report({
          messageId: 'bridged',
          data: { parent: shortId(parent), standIn: shortId(standIn.uuid), gap: Math.round(record.time - standIn.time) },
          record,
          severity: 'warning',
          fix,
        });
        continue;
      }
      if (resume.end.kind === 'missing-parent' && resume.end.at === record && resume.total > resume.loaded) {
        report({ messageId: 'cutsHistory', data: { parent: shortId(parent), lost: resume.total - resume.loaded }, record, fix });
      } else {
        report({ messageId: 'missing', data: { parent: shortId(parent) }, record, fix });
      }
    }
  },
});
