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
 * `cclint fix --strip-thinking <session.jsonl>` is the repair for a session
 * that fails with one of these errors where this rule sees no cause: it
 * drops every thinking and redacted_thinking block of the conversation
 * resume sends (the same edit, on every response of the resumed chain),
 * except the latest response when the request ends with its tool results
 * (with thinking on, the API requires that message to start with
 * thinking). Unsafe in the same way; the flag is the request for it.
 *
 * ## Known false positives
 * A thinking text edited where no unedited copy is left cannot be seen
 * offline (the signature is opaque); it is not reported. Such a session
 * still answers `API Error: 400`: `--strip-thinking` repairs it.
 */
import { editedThinking, repeatedSignatures } from '../core/api-request.js';
import { requestMessages } from '../core/resume-cli.js';
import type { RecordSummary } from '../core/records.js';
import type { ResumeModel } from '../core/resume.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Finding, Fix, JsonObject } from '../core/types.js';
import { rewriteContentEdits } from '../core/fix-builders.js';
import { defineRule } from './rule.js';

const THINKING = new Set(['thinking', 'redacted_thinking']);

const hasThinking = (r: RecordSummary): boolean => /[kKr]/.test(r.blocks);

/**
 * Edits that drop the thinking blocks of `rows`: a row left with nothing
 * goes, and the rows below it hang from the row above it.
 */
function dropThinkingEdits(index: SessionIndex, rows: readonly RecordSummary[]) {
  return rewriteContentEdits(index, rows, (content) => {
    const kept = content.filter((b: JsonObject) => !THINKING.has(b?.type as string));
    return kept.length === 0 ? null : kept;
  });
}

function dropThinkingFix(index: SessionIndex, record: RecordSummary): Fix {
  const rows = index.responseRows(record).filter(hasThinking);
  return {
    title: `Drop the thinking blocks of this response (${rows.length} row(s))`,
    applicability: 'unsafe',
    changesContent: true,
    edits: () => dropThinkingEdits(index, rows),
  };
}

/** The title of the `--strip-thinking` repair (one title, whatever it strips, so a pass can find it again). */
export const STRIP_THINKING_TITLE = 'Strip every thinking block of the resumed conversation (--strip-thinking)';

/**
 * The rows of the latest assistant message when the request ends with its
 * tool results (a turn cut off after a tool ran, or interrupted; a call
 * cut off before its result gets a synthetic one from the CLI): the next
 * prompt joins those results, and with thinking on the API then requires
 * that message to start with thinking ("a final `assistant` message must
 * start with a thinking block"), so stripping it would trade one 400 for
 * another. Empty otherwise.
 */
function keptForToolTail(chain: readonly RecordSummary[]): ReadonlySet<RecordSummary> {
  const messages = requestMessages(chain);
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') return new Set(last.rows.some((r) => r.toolUseIds.length > 0) ? last.rows : []);
  const before = messages[messages.length - 2];
  if (last?.role !== 'user' || before?.role !== 'assistant') return new Set();
  if (!last.rows.some((r) => r.type === 'user' && r.toolResultIds.length > 0)) return new Set();
  return new Set(before.rows);
}

/**
 * The repair `cclint fix --strip-thinking` asks for, as a finding of this
 * rule with its fix: every assistant row of the chain resume loads that
 * holds a thinking or redacted_thinking block loses them, except the
 * latest message when the request ends with its tool results (see
 * {@link keptForToolTail}). Undefined when there is nothing to strip (a
 * stripped session, or one without thinking), so a second run changes
 * nothing. Rows on branches resume does not send (abandoned attempts,
 * history before a compaction or a break) are left as they are.
 */
export function stripThinkingFinding(index: SessionIndex, resume: ResumeModel): Finding | undefined {
  const kept = keptForToolTail(resume.chain);
  const rows = resume.chain.filter((r) => r.type === 'assistant' && hasThinking(r) && r.recovery === undefined && !kept.has(r));
  const first = rows[0];
  if (first === undefined) return undefined;
  const count = (r: RecordSummary): number => [...r.blocks].filter((k) => k === 'k' || k === 'K' || k === 'r').length;
  const blocks = rows.reduce((n, r) => n + count(r), 0);
  const keptBlocks = [...kept].reduce((n, r) => n + (r.type === 'assistant' ? count(r) : 0), 0);
  const keptNote =
    keptBlocks === 0
      ? ''
      : `; the ${keptBlocks} of the latest response stay: the request ends with its tool results, and the API requires that message to start with thinking`;
  return {
    ruleId: 'thinking-signature',
    severity: 'info',
    messageId: 'strip',
    message: `--strip-thinking: ${blocks} thinking block(s) in ${rows.length} row(s) of the resumed conversation${keptNote}`,
    line: first.line,
    ...(first.uuid === undefined ? {} : { uuid: first.uuid }),
    fix: {
      title: STRIP_THINKING_TITLE,
      applicability: 'unsafe',
      changesContent: true,
      edits: () => dropThinkingEdits(index, rows),
    },
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
    const edited = editedThinking(index);
    for (const [key, rows] of repeatedSignatures(index)) {
      const original = rows[0] as RecordSummary;
      for (const row of rows.slice(1)) {
        if (!index.isEffective(row)) continue; // an older copy of a repeated uuid
        if (!found.has(row) && edited.get(row)?.has(key) === true) found.set(row, { messageId: 'edited', data: { line: original.line } });
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
