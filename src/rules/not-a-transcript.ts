/**
 * not-a-transcript
 *
 * ## What it detects
 * A file with content but no record Claude Code could have written: binary
 * data (NUL bytes or bytes that are not UTF-8), text with no JSON object on
 * any line, JSON objects none of which has a record type Claude Code knows
 * (nor a `uuid` or `sessionId`, as a newer type would), or nothing but NUL
 * padding. Reported once per file, on line 1. A file of metadata rows only
 * (`summary`, `custom-title`, …) is a transcript; an empty file or one of
 * blank lines is not judged (Claude Code leaves empty session files behind).
 *
 * ## Why it matters
 * A `.jsonl` name is no proof. Linted as a transcript, such a file gets one
 * finding per line, "fixes" that cut or delete its lines (a binary file
 * would be emptied), and a perfect resume score for the conversation it
 * does not hold. When this rule reports, the other rules do not run on the
 * file (`meta.exclusive`), and the file gets no resume figures.
 *
 * ## Fix
 * None, and no other rule's fix applies to the file: cclint does not change
 * what it cannot recognise. Move the file out of the projects folder, or
 * delete it once you know what it is.
 *
 * ## Known false positives
 * A transcript damaged so badly that no line of it parses any more (for
 * instance a session whose every write was lost to NUL padding): there is
 * nothing left in it for Claude Code to load either.
 */
import { NOT_TRANSCRIPT_MESSAGES, notTranscript, notTranscriptReport } from '../core/transcript.js';
import { defineRule } from './rule.js';

export default defineRule({
  meta: {
    id: 'not-a-transcript',
    description: 'A file linted as a transcript must hold at least one Claude Code record',
    severity: 'error',
    exclusive: true,
    messages: NOT_TRANSCRIPT_MESSAGES,
  },
  check({ index, report }) {
    const verdict = notTranscript(index);
    if (verdict === undefined) return;
    report({ ...notTranscriptReport(verdict), line: 1 });
  },
});
