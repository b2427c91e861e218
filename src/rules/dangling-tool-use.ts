/**
 * dangling-tool-use
 *
 * ## What it detects
 * A `tool_use` block in an assistant record with no `tool_result` for its id
 * anywhere after it on its branch (a descendant of the record, or of another
 * row of the same API response, or a result that names the record through
 * `sourceToolAssistantUUID`).
 *
 * ## Why it matters
 * Older Claude Code versions send the history as is and the API rejects it
 * ("tool_use ids were found without tool_result blocks", peers.md §3 row
 * 5a). 2.1.330 repairs it on load: it drops an assistant row whose every
 * tool call is unanswered, or adds a synthetic error result.
 *
 * ## Fix
 * None automatically yet; `cclint fix` will offer an unsafe synthetic
 * `is_error` result. A tool call at the very end of a live session is
 * legitimately unanswered until the tool returns.
 *
 * ## Known false positives
 * A session that is still running; a result written into a subagent file.
 */
import type { RecordSummary } from '../core/records.js';
import { defineRule, shortId } from './rule.js';

export default defineRule({
  meta: {
    id: 'dangling-tool-use',
    description: 'Every tool_use is answered by a tool_result on its branch',
    severity: 'warning',
    messages: {
      dangling: 'tool_use {id} ({count} in this message) has no tool_result after it on its branch',
    },
  },
  check({ index, report }) {
    const resultsById = new Map<string, RecordSummary[]>();
    const byMessageId = new Map<string, RecordSummary[]>();
    for (const r of index.effectiveRecords()) {
      for (const id of r.toolResultIds) {
        const list = resultsById.get(id);
        if (list === undefined) resultsById.set(id, [r]);
        else list.push(r);
      }
      if (r.type === 'assistant' && r.messageId !== undefined) {
        const key = `${r.isSidechain}:${r.agentId ?? ''}:${r.messageId}`;
        const list = byMessageId.get(key);
        if (list === undefined) byMessageId.set(key, [r]);
        else list.push(r);
      }
    }
    for (const record of index.effectiveRecords()) {
      if (record.type !== 'assistant' || record.toolUseIds.length === 0) continue;
      const siblings =
        record.messageId === undefined
          ? [record]
          : (byMessageId.get(`${record.isSidechain}:${record.agentId ?? ''}:${record.messageId}`) ?? [record]);
      for (const id of record.toolUseIds) {
        const answered = (resultsById.get(id) ?? []).some(
          (result) =>
            result.sourceToolAssistantUuid === record.uuid || siblings.some((s) => index.isAncestor(s, result)),
        );
        if (!answered) {
          report({ messageId: 'dangling', data: { id: shortId(id), count: record.toolUseIds.length }, record });
        }
      }
    }
  },
});
