/**
 * message-id-reuse
 *
 * ## What it detects
 * Two API responses that share a `message.id`: a row carrying the id of a
 * response higher up its own chain, with a typed prompt in between, or with
 * a tool result in between when both sides carry their own thinking (each
 * API call starts its response with its own thinking). Such a row was given
 * the wrong id (a tool that rewrote the file, a copy stitched from two
 * sessions). Claude Code itself keeps one `message.id` over the sequential
 * tool calls of a turn, without new thinking: that is not reported.
 *
 * ## Why it matters
 * The CLI merges every row of one `message.id` into one assistant message
 * and reaches back over tool results to do it: the later answer is put
 * before the result it answers, and, when both responses thought, the
 * message carries thinking of two calls. In the latest assistant message
 * the API rejects that on every prompt after `claude --resume`:
 * `API Error: 400 … thinking or redacted_thinking blocks in the latest
 * assistant message cannot be modified`. Error when the request resume
 * sends breaks this way; warning otherwise (the model still sees the turn
 * out of order, or not at all once a typed prompt stops the merge).
 *
 * ## Fix
 * Give the later response (the row and the rows of that id below it) a
 * fresh `message.id`, derived from its first row's uuid. Safe: no content
 * changes, and the CLI then sends the two responses as two messages, the
 * way the API returned them.
 *
 * ## Known false positives
 * None known on real sessions; a response with interleaved thinking that
 * Claude Code wrote under one id over a tool call would be reported.
 */
import { createHash } from 'node:crypto';
import type { RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix } from '../core/types.js';
import { setFieldsEdits } from '../core/fix-builders.js';
import { defineRule } from './rule.js';

const MAX_WALK = 10_000;
const hasThinking = (r: RecordSummary): boolean => /[kKr]/.test(r.blocks);

function isTypedPrompt(r: RecordSummary): boolean {
  return r.type === 'user' && !r.isMeta && !r.isCompactSummary && r.toolResultIds.length === 0 && r.commandTag === undefined && !r.interrupt;
}

interface Reuse {
  readonly earlier: RecordSummary;
  readonly across: 'tool result' | 'typed prompt';
}

/** Up from `row` to the nearest row of its response; what lies between. */
function reuseOf(index: SessionIndex, row: RecordSummary, firstOrdinal: number): Reuse | undefined {
  let across: Reuse['across'] | undefined;
  let p = index.parentOf(row);
  for (let steps = 0; p !== undefined && steps < MAX_WALK && p.ordinal >= firstOrdinal; steps++) {
    if (p.type === 'assistant' && p.messageId === row.messageId && p.isSidechain === row.isSidechain) {
      return across === undefined ? undefined : { earlier: p, across };
    }
    if (isTypedPrompt(p)) across = 'typed prompt';
    else if (p.type === 'user' && p.toolResultIds.length > 0 && across === undefined) across = 'tool result';
    p = index.parentOf(p);
  }
  return undefined;
}

function freshIdFix(index: SessionIndex, row: RecordSummary): Fix {
  const id = `msg_01${createHash('sha256').update(`${row.uuid ?? row.line}:${row.messageId ?? ''}`).digest('base64url').replace(/[-_]/g, 'x').slice(0, 22)}`;
  const rows = index.responseRows(row).filter((r) => r === row || index.isAncestor(row, r));
  return {
    title: `Give the later response a fresh message.id (${rows.length} row(s))`,
    applicability: 'safe',
    changesContent: true,
    edits: () =>
      rows.flatMap((r) => {
        const obj = index.recordObject(r);
        const message = obj?.message;
        if (message === null || typeof message !== 'object') return [];
        return setFieldsEdits(index, r, { message: { ...(message as object), id } });
      }),
  };
}

export default defineRule({
  meta: {
    id: 'message-id-reuse',
    description: 'Two API responses never share a message.id',
    severity: 'error',
    fixable: 'safe',
    messages: {
      reused: 'message.id of the response on line {line} again, past a {across}; {what}',
    },
  },
  check({ index, resume, report }) {
    const seen = new Set<string>();
    for (const record of index.effectiveRecords()) {
      if (record.type !== 'assistant' || record.messageId === undefined) continue;
      const rows = index.responseRows(record);
      if (rows.length < 2) continue;
      const first = rows[0] as RecordSummary;
      if (record === first) continue;
      const reuse = reuseOf(index, record, first.ordinal);
      if (reuse === undefined) continue;
      if (reuse.across === 'tool result') {
        // Claude Code itself keeps one message.id over the sequential tool
        // calls of a turn (measured on 2.1.114 sessions), and the CLI sends
        // them merged without harm. Two API calls are told apart by their
        // thinking: each call's response starts with its own.
        const later = rows.filter((r) => r === record || index.isAncestor(record, r));
        const earlier = rows.filter((r) => r !== record && index.isAncestor(r, record));
        if (!later.some(hasThinking) || !earlier.some(hasThinking)) continue;
      }
      const key = `${record.messageId}:${record.uuid ?? record.line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const fails = resume.request().violations.some((v) => v.rule === 'thinking-merged-latest' && v.record.messageId === record.messageId);
      const merged = reuse.across === 'tool result' && resume.onChain(record) && resume.onChain(reuse.earlier);
      report({
        messageId: 'reused',
        data: {
          line: reuse.earlier.line,
          across: reuse.across,
          what: fails
            ? 'resume merges the two into the latest message and the API answers 400'
            : merged
              ? 'resume merges the two, the answer before the result it answers'
              : 'resume sends them apart today',
        },
        record,
        severity: fails ? 'error' : 'warning',
        fix: freshIdFix(index, record),
      });
    }
  },
});
