/**
 * thinking-order
 *
 * ## What it detects
 * An API response whose rows, followed along the chain, put a text row
 * before the response's first thinking row: the response would start with
 * text when it started with thinking. Claude Code writes one row per
 * content block; a text row written ahead of its thinking row (by a tool
 * that rewrote the file, or by a parent link set wrong) reorders them.
 *
 * ## Why it matters
 * The CLI merges the rows of a response into one assistant message in chain
 * order and sends it as it is, and the API rejects it on every prompt after
 * `claude --resume`: `API Error: 400 … If an assistant message contains any
 * thinking blocks, the first block must be thinking or redacted_thinking.
 * Found text.` A blank text row ahead of the thinking does no harm (the
 * CLI drops blank text), nor does a tool call (it goes last). Error when
 * the request resume sends breaks this way; warning when the response is on
 * a branch resume does not send.
 *
 * ## Fix
 * Put the thinking row first within its response: it takes the parent of
 * the response's first row, that row hangs from it, the rows that hung from
 * the thinking row hang from the row that was above it, and its line moves
 * before the response's first line. Safe: no block changes, and thinking
 * first is the order the API returned.
 *
 * ## Known false positives
 * None known: the API itself never returns text before thinking in one
 * response.
 */
import type { RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix } from '../core/types.js';
import { rechainEdits } from '../core/fix-builders.js';
import { defineRule } from './rule.js';

const MAX_WALK = 10_000;
const hasThinking = (r: RecordSummary): boolean => /[kKr]/.test(r.blocks);

/** The rows of the same response above `row`, nearest first (progress and attachment rows passed over). */
function responseAbove(index: SessionIndex, row: RecordSummary): RecordSummary[] {
  const above: RecordSummary[] = [];
  let p = index.parentOf(row);
  for (let steps = 0; p !== undefined && steps < MAX_WALK; steps++) {
    if (p.type === 'assistant') {
      if (p.messageId !== row.messageId || p.isSidechain !== row.isSidechain) break;
      above.push(p);
    } else if (p.type !== 'progress' && p.type !== 'attachment') break;
    p = index.parentOf(p);
  }
  return above;
}

function moveFirstFix(index: SessionIndex, thinking: RecordSummary, above: readonly RecordSummary[]): Fix | undefined {
  const first = above[above.length - 1] as RecordSummary;
  if (thinking.uuid === undefined || first.parentUuid === undefined || thinking.parentUuid === undefined) return undefined;
  const parents = new Map<RecordSummary, string | null>([
    [thinking, first.parentUuid],
    [first, thinking.uuid],
  ]);
  for (const child of index.childrenOf(thinking.uuid)) parents.set(child, thinking.parentUuid);
  return {
    title: 'Move the thinking row before the first row of its response',
    applicability: 'safe',
    edits: () => rechainEdits(index, parents, [thinking], first),
  };
}

export default defineRule({
  meta: {
    id: 'thinking-order',
    description: 'A response with thinking starts with its thinking row',
    severity: 'error',
    fixable: 'safe',
    messages: {
      textFirst: 'thinking comes after the text on line {line} of the same response; {what}',
    },
  },
  check({ index, resume, report }) {
    for (const record of index.effectiveRecords()) {
      if (record.type !== 'assistant' || record.messageId === undefined || !hasThinking(record)) continue;
      // The response's own first block is thinking: fine.
      if (/^[kKr]/.test(record.blocks.replace(/b/g, '')) === false) continue;
      const above = responseAbove(index, record);
      if (above.some(hasThinking)) continue; // not the response's first thinking row
      const text = above.filter((r) => r.blocks.includes('t')).pop();
      if (text === undefined) continue;
      const fails = resume
        .request()
        .violations.some((v) => v.rule === 'thinking-not-first' && v.record.messageId === record.messageId && resume.request().carries(record));
      report({
        messageId: 'textFirst',
        data: {
          line: text.line,
          what: fails ? 'resume sends text before thinking and the API answers 400' : 'resume does not send this response today',
        },
        record,
        severity: fails ? 'error' : 'warning',
        fix: moveFirstFix(index, record, above),
      });
    }
  },
});
