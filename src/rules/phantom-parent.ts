/**
 * phantom-parent
 *
 * ## What it detects
 * A record whose `parentUuid` names a uuid that exists nowhere it could:
 * not in this file, not in the main session of a subagent file, not in a
 * subagent file of this session, and not in another session of the same
 * project folder (the session a copied or continued conversation came from).
 *
 * ## Why it matters
 * Claude Code walks `parentUuid` back from the last message to rebuild the
 * conversation. At a phantom parent it looks for a stand-in written at most
 * 5 s earlier; when there is none it stops, and everything before the gap is
 * silently left out of the resumed conversation (the "resume only shows the
 * last few messages" reports, https://github.com/anthropics/claude-code/issues/22526 and
 * https://github.com/anthropics/claude-code/issues/58554). A bridged gap is a warning; a gap
 * that cuts history is an error.
 * A subagent root whose main session file is simply absent is info: the
 * link cannot be checked, and subagent files are not resumed.
 *
 * ## Fix
 * Relink to the nearest earlier main-chain user/assistant record in the same
 * compaction segment. Safe when the previous record has no other child on the
 * main chain (the relink reproduces the linear history Claude Code wrote);
 * unsafe when it already has one (the relink creates a fork and the choice
 * of branch is a guess). Never across a compact boundary, never to a later
 * record, never to a descendant (no cycles). No fix when there is no such
 * record.
 *
 * ## Known false positives
 * A parent that lives in a file outside the checked paths (check a whole
 * project folder to resolve cross-file links). Sidechain rows of 1.0.x
 * sessions whose Task prompt was never written are reported as warnings.
 */
import { bridgeTarget, isMainChainRow } from '../core/analysis.js';
import { relinkFix } from '../core/fix-builders.js';
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
      const target = bridgeTarget(index, record);
      const fix = target === undefined ? undefined : relinkFix(index, record, target);
      if (!isMainChainRow(index, record)) {
        report({ messageId: 'sidechain', data: { parent: shortId(parent) }, record, severity: 'warning', fix });
        continue;
      }
      const standIn = resume.standIn(record);
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
