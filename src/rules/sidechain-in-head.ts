/**
 * sidechain-in-head
 *
 * ## What it detects
 * A main session file (`<uuid>.jsonl`) with an `"isSidechain":true` record in
 * its first 64 KiB.
 *
 * ## Why it matters
 * Claude Code's session picker reads only the first and last 64 KiB of each
 * file and hides any session whose head contains `"isSidechain":true`: the
 * session disappears from `/resume` and `--continue`. Sessions
 * written by 1.0.x, which kept subagent rows inline, are affected.
 *
 * ## Fix
 * None automatically: moving sidechain rows into a subagent file rewrites
 * the layout. `claude --resume <session-id>` still opens the session.
 *
 * ## Known false positives
 * None for 2.1.330; older versions listed such sessions.
 */
import { defineRule } from './rule.js';

const HEAD_BYTES = 64 * 1024;

export default defineRule({
  meta: {
    id: 'sidechain-in-head',
    description: 'A main session has no sidechain record in its first 64 KiB',
    severity: 'warning',
    messages: {
      hidden: 'a sidechain record sits in the first 64 KiB; Claude Code hides this session from /resume and --continue',
    },
  },
  check({ index, report }) {
    if (index.file.role !== 'main') return;
    const record = index.records.find((r) => r.isSidechain);
    if (record !== undefined && index.lineOffset(record.line) < HEAD_BYTES) {
      report({ messageId: 'hidden', record });
    }
  },
});
