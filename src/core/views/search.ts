/**
 * The search view model: where a text was said in a session, with a short
 * excerpt around each match and the command that resumes the session.
 * By default only the conversation `claude --resume` loads is searched;
 * `all` adds the rest of the file (abandoned branches, history a break
 * cuts off) and sidechains, each hit labelled with where it lies. Pure
 * apart from re-reading the matched lines through the index.
 */
import type { RecordSummary } from '../records.js';
import { resumeModel } from '../resume.js';
import type { SessionIndex } from '../session-index.js';
import { launchCwd, resumeCommand, spokenText } from './conversation.js';
import { factsOf, titleOf } from './sessions.js';

/** Finds the first match in a text; `mayMatch` is a cheap test on the raw JSON line. */
export interface Matcher {
  find(text: string): { readonly start: number; readonly end: number } | undefined;
  mayMatch(rawLine: string): boolean;
  /**
   * A test on raw file bytes read as latin1, chunk by chunk (chunks overlap
   * by `needleBytes`): false means no record of the chunk can match, so a
   * file no chunk of which may match need not be parsed at all. Absent when
   * no such test is sound (a regular expression, a needle JSON may escape).
   */
  readonly mayMatchChunk?: ((latin1: string) => boolean) | undefined;
  readonly needleBytes: number;
}

/** Plain text, case-insensitive. */
export function plainMatcher(needle: string): Matcher {
  const lower = needle.toLowerCase();
  // JSON escapes only quotes, backslashes and control characters, and Claude
  // Code writes other characters as they are: a printable ASCII needle
  // without those appears verbatim in the raw line of any record that says it.
  const verbatim = /^[\x20-\x7e]+$/.test(needle) && !/["\\]/.test(needle);
  // Over latin1 text a case-insensitive literal matches exactly the chunks
  // whose bytes hold the needle in any case: the bytes of other characters
  // are 0x80 and above, and none of them folds to an ASCII letter.
  const inChunk = verbatim ? new RegExp(needle.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'i') : undefined;
  return {
    find(text) {
      const at = text.toLowerCase().indexOf(lower);
      return at < 0 || lower === '' ? undefined : { start: at, end: at + lower.length };
    },
    mayMatch: (raw) => !verbatim || raw.toLowerCase().includes(lower),
    mayMatchChunk: inChunk === undefined ? undefined : (latin1) => inChunk.test(latin1),
    needleBytes: Buffer.byteLength(needle),
  };
}

/** A JavaScript regular expression (case-insensitive unless it has an upper-case letter: smart case). */
export function regexMatcher(source: string): Matcher {
  const re = new RegExp(source, /[A-Z]/.test(source.replace(/\\./g, '')) ? 'u' : 'iu');
  return {
    find(text) {
      re.lastIndex = 0;
      const m = re.exec(text);
      return m === null || m[0] === '' ? undefined : { start: m.index, end: m.index + m[0].length };
    },
    mayMatch: () => true,
    needleBytes: 0,
  };
}

/**
 * Where a hit lies: on the conversation resume loads, on history resume
 * loses to a break, on a branch left at a rewind or fork, or in a sidechain
 * (a subagent's thread).
 */
export type HitPlace = 'resumed' | 'lost' | 'abandoned' | 'sidechain';

export interface SearchHit {
  readonly uuid: string | undefined;
  readonly type: string;
  readonly time: number;
  readonly line: number;
  readonly filePath: string;
  readonly place: HitPlace;
  /** The excerpt around the match, on one line: before, the match, after. */
  readonly before: string;
  readonly match: string;
  readonly after: string;
}

export interface SessionHits {
  readonly sessionId: string;
  readonly filePath: string;
  readonly title: string;
  readonly cwd: string | undefined;
  readonly lastTime: number;
  /** `cd <cwd> && claude --resume <sessionId>`, shell-quoted. */
  readonly command: string;
  readonly hits: readonly SearchHit[];
}

/** Characters of context kept on each side of a match. */
export const CONTEXT = 40;

/** One line, not trimmed: line breaks as `⏎`, tabs and runs of spaces as one space. */
function line(text: string): string {
  return text.replace(/\r\n|\r|\n/g, '⏎').replace(/[\t ]+/g, ' ');
}

function excerpt(text: string, start: number, end: number): Pick<SearchHit, 'before' | 'match' | 'after'> {
  const from = Math.max(0, start - CONTEXT);
  const to = Math.min(text.length, end + CONTEXT);
  return {
    before: (from > 0 ? '…' : '') + line(text.slice(from, start)).trimStart(),
    match: line(text.slice(start, end)),
    after: line(text.slice(end, to)).trimEnd() + (to < text.length ? '…' : ''),
  };
}

function isSaid(r: RecordSummary): boolean {
  return (r.type === 'user' || r.type === 'assistant') && !r.isMeta;
}

/**
 * Searches one session group: `indexes` are its files, main file first when
 * there is one. Undefined when nothing matches.
 */
export function searchSession(indexes: readonly SessionIndex[], matcher: Matcher, options: { readonly all: boolean }): SessionHits | undefined {
  const main = indexes.find((i) => i.file.role === 'main') ?? (options.all ? indexes[0] : undefined);
  if (main === undefined) return undefined;
  const hits: SearchHit[] = [];
  const look = (index: SessionIndex, r: RecordSummary, place: HitPlace): void => {
    if (!matcher.mayMatch(index.lineText(r.line))) return;
    const text = spokenText(index.recordObject(r));
    const found = matcher.find(text);
    if (found === undefined) return;
    hits.push({ uuid: r.uuid, type: r.type, time: r.time, line: r.line, filePath: index.file.displayPath, place, ...excerpt(text, found.start, found.end) });
  };
  const resume = resumeModel(main);
  if (!options.all) {
    if (main.file.role === 'main') for (const r of resume.messages) look(main, r, 'resumed');
  } else {
    const loaded = new Set(resume.messages);
    const intended = new Set(resume.intendedMessages);
    for (const index of indexes) {
      for (const r of index.effectiveRecords()) {
        if (!isSaid(r)) continue;
        const place: HitPlace =
          index.file.role !== 'main' || r.isSidechain ? 'sidechain' : loaded.has(r) ? 'resumed' : intended.has(r) ? 'lost' : 'abandoned';
        if (index !== main && place !== 'sidechain') continue;
        look(index, r, place);
      }
    }
  }
  if (hits.length === 0) return undefined;
  const facts = factsOf(main);
  const sessionId = main.file.layoutSessionId ?? facts.sessionId ?? '';
  const cwd = launchCwd(main);
  return {
    sessionId,
    filePath: main.file.displayPath,
    title: titleOf(facts),
    cwd,
    lastTime: facts.lastTime,
    command: resumeCommand(cwd, sessionId),
    hits,
  };
}
