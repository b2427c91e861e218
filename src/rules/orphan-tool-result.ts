/**
 * orphan-tool-result
 *
 * ## What it detects
 * A `tool_result` whose `tool_use_id` has no `tool_use` in the assistant turn
 * right before it: walking up from the result past other tool-result,
 * attachment and system rows, the first assistant API response (all rows
 * sharing its `message.id`) does not hold that id.
 *
 * ## Why it matters
 * The API rejects such a history ("unexpected tool_use_id found in
 * tool_result blocks … must have a corresponding tool_use block in the
 * previous message", https://github.com/anthropics/claude-code/issues/8484). Compaction that summarised
 * the call away and lost parallel results are the usual causes. 2.1.330
 * strips such results on load; older versions fail on every turn. The
 * finding says what 2.1.330 does: warning when resume sends the row and
 * drops the result from the request (the model loses that tool output);
 * info when resume does not send the branch. The request does not fail
 * either way.
 *
 * ## Fix
 * Remove the orphan `tool_result` block; when nothing else is left in the
 * record, delete the record and point its children at its parent (the
 * manual fix documented in that issue). Unsafe: it deletes tool output, which
 * stays in the backup. Opt-in: applied only with `--rule orphan-tool-result`.
 *
 * ## Known false positives
 * When the walk up meets a phantom parent the rule stays silent (that break
 * is reported by phantom-parent) rather than guess.
 */
import type { RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix, JsonObject, RecordEdit } from '../core/types.js';
import { setFieldsEdits } from '../core/fix-builders.js';
import { defineRule, shortId } from './rule.js';

function removeResultsFix(index: SessionIndex, record: RecordSummary, orphans: ReadonlySet<string>): Fix {
  return {
    title: `Remove ${orphans.size} orphan tool_result block(s)`,
    applicability: 'unsafe',
    edits: () => {
      const obj = index.recordObject(record);
      const message = obj?.message as JsonObject | undefined;
      if (obj === undefined || message === undefined || !Array.isArray(message.content)) return [];
      const kept = (message.content as JsonObject[]).filter(
        (b) => !(b?.type === 'tool_result' && typeof b.tool_use_id === 'string' && orphans.has(b.tool_use_id)),
      );
      if (kept.length > 0) return setFieldsEdits(index, record, { message: { ...message, content: kept } });
      const edits: RecordEdit[] = [{ kind: 'delete', line: record.line, before: index.lineText(record.line) }];
      for (const child of record.uuid === undefined ? [] : index.childrenOf(record.uuid)) {
        edits.push(...setFieldsEdits(index, child, { parentUuid: record.parentUuid ?? null }));
      }
      return edits;
    },
  };
}

const MAX_WALK = 10_000;

export default defineRule({
  meta: {
    id: 'orphan-tool-result',
    description: 'Every tool_result answers a tool_use of the assistant turn before it',
    severity: 'warning',
    fixable: 'unsafe',
    optInFix: true,
    messages: {
      orphan: 'tool_result for {id} has no matching tool_use in the assistant turn before it; {what}',
      noTurn: 'tool_result for {id} has no assistant turn before it (the conversation starts here); {what}',
    },
  },
  check({ index, resume, report }) {
    for (const record of index.effectiveRecords()) {
      if (record.type !== 'user' || record.toolResultIds.length === 0) continue;
      // Walk up to the nearest assistant row.
      let current: RecordSummary | undefined = record;
      let assistant: RecordSummary | undefined;
      let brokenLink = false;
      for (let steps = 0; current !== undefined && steps < MAX_WALK; steps++) {
        const parentId: string | null | undefined = current.parentUuid;
        if (typeof parentId !== 'string') break;
        const parent = index.byUuid.get(parentId);
        if (parent === undefined) {
          brokenLink = true;
          break;
        }
        if (parent.type === 'assistant') {
          assistant = parent;
          break;
        }
        if (parent.type === 'user' && parent.toolResultIds.length === 0 && !parent.isMeta) break; // a real user turn
        current = parent;
      }
      if (brokenLink) continue;
      const source = record.sourceToolAssistantUuid === undefined ? undefined : index.byUuid.get(record.sourceToolAssistantUuid);
      // Nearly always the row above, or the row the result names, made the
      // calls; only otherwise are the other rows of its response needed.
      const called = (id: string): boolean => assistant?.toolUseIds.includes(id) === true || source?.toolUseIds.includes(id) === true;
      if (record.toolResultIds.every(called)) continue;
      const ids = new Set<string>();
      if (assistant !== undefined) {
        for (const a of index.responseRows(assistant)) for (const id of a.toolUseIds) ids.add(id);
      }
      for (const id of source?.toolUseIds ?? []) ids.add(id);
      const orphans = new Set(record.toolResultIds.filter((id) => !ids.has(id)));
      const fix = orphans.size > 0 && record.recovery === undefined ? removeResultsFix(index, record, orphans) : undefined;
      const sent = resume.onChain(record);
      const what = sent ? 'resume drops it from the request' : 'resume does not send this branch';
      for (const id of orphans) {
        report({
          messageId: assistant === undefined ? 'noTurn' : 'orphan',
          data: { id: shortId(id), what },
          record,
          severity: sent ? 'warning' : 'info',
          fix,
        });
      }
    }
  },
});
