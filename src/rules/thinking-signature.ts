/**
 * thinking-signature
 *
 * ## What it detects
 * A thinking block the API will not take back: one whose `signature` is
 * empty or missing, or one whose signature also sits on another row with a
 * different thinking text (the text was edited, and the other copy still
 * holds what the API returned). The first copy in the file counts as the
 * original.
 *
 * ## Why it matters
 * The API checks every thinking block it is sent against its signature,
 * and the CLI sends them as written: `API Error: 400 … Invalid signature in
 * thinking block`, or, for the latest assistant message, `thinking or
 * redacted_thinking blocks in the latest assistant message cannot be
 * modified`, on every prompt after `claude --resume`. The CLI only strips
 * thinking signed by another model. Error when the request resume sends
 * holds such a block; warning when it is on a branch resume does not send.
 *
 * ## Fix
 * Drop the thinking blocks of that whole response (a row holding only
 * thinking goes, and the rows below it hang from the row above). Unsafe:
 * the model no longer sees what it thought in that turn, and the original
 * stays only in the backup. The API accepts earlier turns without their
 * thinking. Offered only where the request fails today: a block on a branch
 * resume does not send (a rewind's abandoned attempt) is left as it is.
 *
 * ## Known false positives
 * A thinking text edited where no unedited copy is left cannot be seen
 * offline; it is not reported.
 */
import { repeatedSignatures, thinkingEdited } from '../core/api-request.js';
import type { RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix, JsonObject } from '../core/types.js';
import { rewriteContentEdits } from '../core/fix-builders.js';
import { defineRule } from './rule.js';

const THINKING = new Set(['thinking', 'redacted_thinking']);

function dropThinkingFix(index: SessionIndex, record: RecordSummary): Fix {
  const rows = index.responseRows(record).filter((r) => /[kKr]/.test(r.blocks));
  return {
    title: `Drop the thinking blocks of this response (${rows.length} row(s))`,
    applicability: 'unsafe',
    changesContent: true,
    edits: () =>
      rewriteContentEdits(index, rows, (content) => {
        const kept = content.filter((b: JsonObject) => !THINKING.has(b?.type as string));
        return kept.length === 0 ? null : kept;
      }),
  };
}

export default defineRule({
  meta: {
    id: 'thinking-signature',
    description: 'Every thinking block is signed and unedited',
    severity: 'error',
    fixable: 'unsafe',
    messages: {
      unsigned: 'thinking block without a signature; {what}',
      edited: 'thinking signature also on line {line} with another text (edited); {what}',
    },
  },
  check({ index, resume, report }) {
    const fate = (record: RecordSummary): { what: string; severity: 'error' | 'warning' } => {
      const fails = resume.request().violations.some((v) => v.record === record && v.rule.startsWith('thinking-'));
      return fails
        ? { what: 'resume sends it and the API answers 400', severity: 'error' }
        : { what: 'resume does not send it today', severity: 'warning' };
    };
    const found = new Map<RecordSummary, { messageId: string; data: Record<string, string | number> }>();
    for (const record of index.effectiveRecords()) {
      if (record.type === 'assistant' && record.blocks.includes('K')) found.set(record, { messageId: 'unsigned', data: {} });
    }
    const repeated = [...repeatedSignatures(index)];
    for (const [key, rows] of repeated) {
      const original = rows[0] as RecordSummary;
      for (const row of rows.slice(1)) {
        if (row.uuid !== undefined && index.byUuid.get(row.uuid) !== row) continue; // an older copy of a repeated uuid
        if (!found.has(row) && thinkingEdited(index, original, row, key)) found.set(row, { messageId: 'edited', data: { line: original.line } });
      }
    }
    for (const record of [...found.keys()].sort((a, b) => a.ordinal - b.ordinal)) {
      const { messageId, data } = found.get(record) as { messageId: string; data: Record<string, string | number> };
      const { what, severity } = fate(record);
      // Only a request that fails is worth losing thinking for: a response
      // resume does not send today (an abandoned attempt, a row before a
      // break) is left as it is, so a rewind's old attempt is never rewritten.
      report({ messageId, data: { ...data, what }, record, severity, fix: severity === 'error' ? dropThinkingFix(index, record) : undefined });
    }
  },
});
