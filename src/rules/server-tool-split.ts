/**
 * server-tool-split
 *
 * ## What it detects
 * A server tool call (`server_tool_use`, such as a web search) and its
 * result (`web_search_tool_result` or another `*_tool_result` block) are
 * rows of one API response, but a row that is not part of the response
 * sits between them: local command output, a `/plugin` command row, a meta
 * user row, on the chain between them or hanging from a row of the
 * response and written between them.
 *
 * ## Why it matters
 * Claude Code merges the rows of a response by `message.id`, in file order
 * and with the rows that hang from them, but not across such a row. It then removes the `server_tool_use` that has no result in
 * its own message and keeps the result, which lands in the next assistant
 * message, and every prompt after `claude --resume` fails with
 * `API Error: 400 … unexpected tool_use_id found in web_search_tool_result
 * blocks … must have a corresponding server_tool_use block before it`.
 * `/rewind`, `/compact` and restarting do not help: the history is sent the
 * same way each time. Error when the request resume sends breaks this way;
 * warning when the split is on a branch resume does not send.
 *
 * ## Fix
 * Move the rows that sit between the call and its result to just before the
 * response (their lines and their place on the chain), so the response's
 * rows are adjacent again and the CLI sends call and result in one message.
 * Safe when every moved row is one that is not part of the conversation (a
 * system row, a meta or command row, an attachment, a progress row): the
 * model saw none of them in between. Unsafe when a typed prompt, a tool
 * result or another response's row would move.
 *
 * ## Known false positives
 * A split where the rows between are only attachments or progress rows is
 * not reported: the CLI merges past those.
 */
import { type ServerSplit, serverSplit, splitsResponse } from '../core/api-request.js';
import type { RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix } from '../core/types.js';
import { rechainEdits } from '../core/fix-builders.js';
import { defineRule, shortId } from './rule.js';

const MAX_WALK = 10_000;

/** A row outside the conversation: moving it changes nothing the model saw. */
function nonConversational(r: RecordSummary): boolean {
  if (r.type === 'system' || r.type === 'attachment' || r.type === 'progress') return true;
  return r.type === 'user' && (r.isMeta || r.commandTag !== undefined) && r.toolResultIds.length === 0;
}

function regroupFix(index: SessionIndex, split: ServerSplit): Fix | undefined {
  const response = index.responseRows(split.result);
  const inResponse = new Set(response);
  // The response's first row on the chain: up from the call through rows of the response.
  let first = split.call;
  for (let steps = 0; steps < MAX_WALK; steps++) {
    const p = index.parentOf(first);
    if (p === undefined || !inResponse.has(p)) break;
    first = p;
  }
  const moved = split.between;
  if (first.parentUuid === undefined || moved.some((r) => r.uuid === undefined)) return undefined;
  // The moved rows, one after another, before the response.
  const parents = new Map<RecordSummary, string | null>();
  moved.forEach((r, i) => parents.set(r, i === 0 ? first.parentUuid ?? null : (moved[i - 1] as RecordSummary).uuid as string));
  parents.set(first, (moved[moved.length - 1] as RecordSummary).uuid as string);
  // What hung from a moved row hangs from the row of the response written before it.
  const movedIds = new Set(moved.map((r) => r.uuid as string));
  for (const r of moved) {
    for (const child of index.childrenOf(r.uuid as string)) {
      if (movedIds.has(child.uuid ?? '')) continue;
      const before = response.filter((x) => x.ordinal < child.ordinal).pop();
      if (before?.uuid !== undefined) parents.set(child, before.uuid);
    }
  }
  const safe = moved.every(nonConversational);
  return {
    title: `Move ${moved.length} row(s) from between the server tool call and its result to before the response`,
    applicability: safe ? 'safe' : 'unsafe',
    edits: () => rechainEdits(index, parents, moved, first),
  };
}

export default defineRule({
  meta: {
    id: 'server-tool-split',
    description: 'A server tool call and its result are not split by a row of another kind',
    severity: 'error',
    fixable: 'safe',
    messages: {
      split: 'server tool result is split from its call on line {line} by {kind} on line {at}; {what}',
    },
  },
  check({ index, resume, report }) {
    for (const record of index.effectiveRecords()) {
      if (record.type !== 'assistant' || !record.blocks.includes('S')) continue;
      const split = serverSplit(index, record);
      if (split === undefined) continue;
      const fails = resume.request().violations.some((v) => v.rule === 'server-tool-result-without-use' && v.record === record);
      const inTheWay = split.between.find(splitsResponse) as RecordSummary;
      report({
        messageId: 'split',
        data: {
          line: split.call.line,
          kind: inTheWay.type === 'system' ? 'local command output' : `user row ${shortId(inTheWay.uuid)}`,
          at: inTheWay.line,
          what: fails
            ? 'resume sends the result without its call and the API answers 400'
            : 'resume does not send this branch today',
        },
        record,
        severity: fails ? 'error' : 'warning',
        fix: regroupFix(index, split),
      });
    }
  },
});
