/**
 * Whether a file is a Claude Code transcript at all.
 *
 * A `.jsonl` name is no proof: a binary file, a text file or some other
 * tool's JSON lines can sit in a projects folder or be named on the command
 * line. Linting one as a transcript reports each of its lines as a torn or
 * garbled record, offers "fixes" that would delete them, and credits it with
 * a perfect resume ("0 of 0 messages"). The verdict here is what the
 * `not-a-transcript` rule reports, what keeps resume figures off such a
 * file, and what `show`, `tree` and `sessions` refuse.
 *
 * Evidence of a transcript is one record (a line that parses as a JSON
 * object, or one recovered from a damaged line) that Claude Code could have
 * written: a record type it knows (format.md §4, metadata-only files of
 * `summary` or `custom-title` rows included), or a type cclint does not know
 * yet on a record that carries a `uuid` or `sessionId`, as every row of a
 * newer Claude Code would. A file with no content at all (0 bytes or only
 * blank lines) is no verdict either way: Claude Code leaves empty session
 * files behind, and they are reported as empty, not as foreign.
 *
 * Everything is read from the index built in the single pass over the file;
 * nothing is read again.
 */
import { isKnownRecordType, type RecordSummary } from './records.js';
import type { SessionIndex } from './session-index.js';
import { countText } from './count-text.js';

/** Why a file with content is not a transcript. */
export type NotTranscript =
  /** Nothing but NUL bytes (and line ends): what a crash leaves of writes that never reached the disk. */
  | { readonly kind: 'nul-only'; readonly bytes: number }
  /** Lines with NUL bytes or bytes that are not UTF-8, and no record. */
  | { readonly kind: 'binary'; readonly bytes: number }
  /** Text, but no line is a JSON object. */
  | { readonly kind: 'text'; readonly lines: number }
  /** JSON objects, none of them a Claude Code record. */
  | { readonly kind: 'foreign-json'; readonly objects: number };

/**
 * The wording of each verdict, shared by the rule's messages and the notes
 * of the commands that refuse such a file, so both say the same thing.
 */
export const NOT_TRANSCRIPT_MESSAGES = {
  nulOnly: 'not a Claude Code transcript: {bytes} bytes of NUL padding and nothing else (a crash can leave this of a session that never reached the disk)',
  binary: 'not a Claude Code transcript: {bytes} bytes of binary data, no JSON record',
  text: 'not a Claude Code transcript: {lines} line(s) of text, none of them a JSON object',
  foreignJson: 'not a Claude Code transcript: {objects} JSON object(s), none of them a Claude Code record (no record type it knows, no uuid or sessionId)',
} as const;

export type NotTranscriptMessageId = keyof typeof NOT_TRANSCRIPT_MESSAGES;

/** A record Claude Code could have written (see the module comment). */
export function isTranscriptRecord(r: Pick<RecordSummary, 'type' | 'uuid' | 'sessionId'>): boolean {
  if (r.type === '') return false;
  return isKnownRecordType(r.type) || r.uuid !== undefined || r.sessionId !== undefined;
}

/** The file's verdict: `undefined` for a transcript, or for a file with nothing in it. */
export function notTranscript(index: SessionIndex): NotTranscript | undefined {
  // Stops at the first record on any real transcript: its first line.
  if (index.records.some(isTranscriptRecord)) return undefined;
  const damaged = index.invalidLines.filter((l) => l.reason !== 'bom');
  if (index.records.length === 0 && damaged.length === 0) return undefined; // empty, or blank lines only
  const bytes = index.stats.byteLength;
  if (index.records.length === 0 && damaged.every((l) => l.reason === 'nul')) return { kind: 'nul-only', bytes };
  if (index.stats.binaryLines > 0) return { kind: 'binary', bytes };
  if (index.records.length > 0) return { kind: 'foreign-json', objects: index.records.length };
  return { kind: 'text', lines: damaged.length };
}

/** The messageId and data the rule reports a verdict with. */
export function notTranscriptReport(verdict: NotTranscript): {
  readonly messageId: NotTranscriptMessageId;
  readonly data: Readonly<Record<string, number>>;
} {
  switch (verdict.kind) {
    case 'nul-only':
      return { messageId: 'nulOnly', data: { bytes: verdict.bytes } };
    case 'binary':
      return { messageId: 'binary', data: { bytes: verdict.bytes } };
    case 'text':
      return { messageId: 'text', data: { lines: verdict.lines } };
    case 'foreign-json':
      return { messageId: 'foreignJson', data: { objects: verdict.objects } };
  }
}

/** The verdict as one sentence, for a command that refuses the file. */
export function describeNotTranscript(verdict: NotTranscript): string {
  const { messageId, data } = notTranscriptReport(verdict);
  return NOT_TRANSCRIPT_MESSAGES[messageId].replace(/\{(\w+)\}/g, (_, key: string) =>
    countText(data[key] ?? 0),
  );
}
