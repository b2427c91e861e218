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
 * ("tool_use ids were found without tool_result blocks"). 2.1.330 repairs
 * it on load, and the finding says how, ranked by what that costs:
 * warning when it drops the assistant row whose every tool call is
 * unanswered, mid-history (the model no longer sees that call, and
 * `resume.loaded` no longer counts the row); info when it answers the call
 * with a synthetic error result (at the end of the history, or beside an
 * answered call of the same row), or when resume does not send the branch
 * at all. The request does not fail either way.
 *
 * ## Fix
 * Where the call ends its branch (the assistant record has no children),
 * insert right after it a user record holding a synthetic `is_error`
 * `tool_result` for each unanswered id, as Claude Code itself does at
 * request time. Unsafe: it writes a result the tool never
 * produced, and a session that is still running may yet answer the call.
 * Where the branch goes on, no fix: a result there would fork the chain.
 * Opt-in: applied only with `--rule dangling-tool-use`, because Claude Code
 * repairs pairing itself and a healthy session interrupted mid-call should
 * come out of `fix` unchanged.
 *
 * ## Known false positives
 * A session that is still running; a result written into a subagent file.
 */
import { createHash } from 'node:crypto';
import type { RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix, JsonObject } from '../core/types.js';
import { serializeRecord } from '../core/records.js';
import { ListTable } from '../core/collections.js';
import { defineRule, shortId } from './rule.js';

const ENVELOPE = ['isSidechain', 'userType', 'cwd', 'sessionId', 'version', 'gitBranch', 'agentId', 'slug'] as const;

/** A deterministic v4-shaped uuid for the synthetic record. */
function syntheticUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-9${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function syntheticResultFix(index: SessionIndex, record: RecordSummary, ids: readonly string[]): Fix {
  return {
    title: `Insert a synthetic is_error tool_result for ${ids.length} unanswered call(s)`,
    applicability: 'unsafe',
    edits: () => {
      const assistant = index.recordObject(record);
      if (assistant === undefined) return [];
      const row: JsonObject = { parentUuid: record.uuid };
      for (const key of ENVELOPE) if (assistant[key] !== undefined) row[key] = assistant[key];
      Object.assign(row, {
        type: 'user',
        message: {
          role: 'user',
          content: ids.map((id) => ({
            type: 'tool_result',
            tool_use_id: id,
            is_error: true,
            content: '[Tool result missing: the session ended before this call\'s result was recorded]',
          })),
        },
        uuid: syntheticUuid(`${record.uuid ?? ''}:${ids.join(',')}`),
        timestamp: record.timestamp,
        sourceToolAssistantUUID: record.uuid,
      });
      return [{ kind: 'insertAfter', line: record.line, after: [serializeRecord(row)] }];
    },
  };
}

export default defineRule({
  meta: {
    id: 'dangling-tool-use',
    description: 'Every tool_use is answered by a tool_result on its branch',
    severity: 'warning',
    fixable: 'unsafe',
    optInFix: true,
    messages: {
      dangling: 'tool_use {id} ({count} in this message) has no tool_result after it on its branch; {what}',
    },
  },
  check({ index, resume, report }) {
    const fate = (record: RecordSummary): { what: string; severity: 'warning' | 'info' } => {
      if (!resume.onChain(record)) return { what: 'resume does not send this branch', severity: 'info' };
      if (!resume.request().carries(record)) return { what: 'resume drops the call from the request', severity: 'warning' };
      return { what: 'resume answers it with a synthetic error result', severity: 'info' };
    };
    const resultsById = new ListTable<string, RecordSummary>();
    for (const r of index.effectiveRecords()) {
      for (const id of r.toolResultIds) resultsById.add(id, r);
    }
    for (const record of index.effectiveRecords()) {
      if (record.type !== 'assistant' || record.toolUseIds.length === 0) continue;
      let siblings: readonly RecordSummary[] | undefined;
      const unanswered = record.toolUseIds.filter((id) => {
        const results = resultsById.get(id);
        if (results.length === 0) return true;
        if (results.some((result) => result.sourceToolAssistantUuid === record.uuid)) return false;
        // A result that does not name its calling row (older versions):
        // below the row itself, as nearly always, or below another row of
        // its response (the record is one of those rows).
        if (results.some((result) => index.isAncestor(record, result))) return false;
        const rows = (siblings ??= index.responseRows(record));
        return !results.some((result) => rows.some((s) => index.isAncestor(s, result)));
      });
      if (unanswered.length === 0) continue;
      const endsBranch = record.uuid !== undefined && index.childCountOf(record) === 0 && record.recovery === undefined;
      const fix = endsBranch ? syntheticResultFix(index, record, unanswered) : undefined;
      const { what, severity } = fate(record);
      for (const id of unanswered) {
        report({ messageId: 'dangling', data: { id: shortId(id), count: record.toolUseIds.length, what }, record, severity, fix });
      }
    }
  },
});
