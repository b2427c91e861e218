/**
 * string-content
 *
 * ## What it detects
 * A user message whose `message.content` is a plain string rather than an
 * array of content blocks.
 *
 * ## Why it matters
 * It is legal, and Claude Code writes it for typed prompts; it is reported
 * as information because tools that read transcripts often expect arrays and
 * drop such turns (https://github.com/wakatime/wakatime-cli/issues/1372,
 * https://github.com/d-kimuson/claude-code-viewer/issues/67).
 *
 * ## Fix
 * Normalise to `[{"type":"text","text":…}]`. Unsafe and opt-in: Claude Code's
 * picker and several tools tell a typed prompt from a tool result by the
 * string shape, so the rewrite can change how the session is listed.
 * Opt-in: applied only with `--rule string-content`.
 *
 * ## Known false positives
 * By design every typed prompt is reported; turn the rule off in
 * `.cclintrc.json` if only errors matter to you.
 */
import { setFieldsEdits } from '../core/fix-builders.js';
import type { JsonObject } from '../core/types.js';
import { defineRule } from './rule.js';

export default defineRule({
  meta: {
    id: 'string-content',
    description: 'User message content is an array of blocks',
    severity: 'info',
    fixable: 'unsafe',
    optInFix: true,
    messages: {
      string: 'user message content is a plain string, not an array of blocks',
    },
  },
  check({ index, report }) {
    for (const record of index.records) {
      if (record.type !== 'user' || record.content !== 'string') continue;
      report({
        messageId: 'string',
        record,
        fix: {
          title: 'Wrap the text in a single text block',
          applicability: 'unsafe',
          edits: () => {
            const obj = index.recordObject(record);
            const message = obj?.message as JsonObject | undefined;
            if (message === undefined || typeof message.content !== 'string') return [];
            return setFieldsEdits(index, record, { message: { ...message, content: [{ type: 'text', text: message.content }] } });
          },
        },
      });
    }
  },
});
