/**
 * blank-prompt
 *
 * ## What it detects
 * A user row whose content is a string that is empty or only whitespace
 * (`""`, `"   "`): a prompt sent with nothing in it, as some tools and
 * older versions wrote it.
 *
 * ## Why it matters
 * The CLI sends a string prompt as one text block, as written, and the API
 * rejects a blank one on every prompt after `claude --resume`:
 * `API Error: 400 … text content blocks must be non-empty`, or `… must
 * contain non-whitespace text`. The CLI does repair the same prompt in
 * array form (it sends its own `(no content)` placeholder instead), and
 * drops the blank block when the row shares a user message with the rows
 * next to it (meta rows, command output). Error when the request resume
 * sends fails this way; warning otherwise.
 *
 * ## Fix
 * Write the content as an array holding the same text block
 * (`[{"type":"text","text":""}]`), the form the CLI repairs itself. Safe:
 * nothing is lost, the row and its place on the chain stay.
 *
 * ## Known false positives
 * None known.
 */
import type { RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix, JsonObject } from '../core/types.js';
import { setFieldsEdits } from '../core/fix-builders.js';
import { defineRule } from './rule.js';

function arrayFix(index: SessionIndex, record: RecordSummary): Fix {
  return {
    title: 'Write the blank prompt as an array with one text block',
    applicability: 'safe',
    edits: () => {
      const message = index.recordObject(record)?.message as JsonObject | undefined;
      if (message === undefined || typeof message.content !== 'string') return [];
      return setFieldsEdits(index, record, { message: { ...message, content: [{ type: 'text', text: message.content }] } });
    },
  };
}

export default defineRule({
  meta: {
    id: 'blank-prompt',
    description: 'A prompt stored as a string is not blank',
    severity: 'error',
    fixable: 'safe',
    messages: {
      blank: 'user message content is {kind} string; {what}',
    },
  },
  check({ index, resume, report }) {
    for (const record of index.effectiveRecords()) {
      if (record.type !== 'user' || record.content !== 'string' || record.blocks !== 'b') continue;
      const fails = resume.request().violations.some((v) => v.record === record && (v.rule === 'empty-text' || v.rule === 'whitespace-text'));
      report({
        messageId: 'blank',
        data: {
          kind: record.excerpt === '' ? 'an empty' : 'a whitespace-only',
          what: fails
            ? 'resume sends it as a blank text block and the API answers 400'
            : resume.request().carries(record)
              ? 'resume merges it with the rows next to it today, which hides it'
              : 'resume does not send it today',
        },
        record,
        severity: fails ? 'error' : 'warning',
        fix: record.recovery === undefined ? arrayFix(index, record) : undefined,
      });
    }
  },
});
