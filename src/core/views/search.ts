/**
 * The search view model: where a text was said in a session, with a short
 * excerpt around each match and the command that resumes the session.
 * By default only the conversation `claude --resume` loads is searched;
 * `all` adds the rest of the file (abandoned branches, history a break
 * cuts off) and sidechains, each hit labelled with where it lies.
 *
 * A session is searched in two halves that meet in {@link sessionHits}:
 *
 * - what the session is, independent of the text searched for
 *   ({@link SearchFacts}: title, folder, and the records searched, in the
 *   order hits are listed), which a cache may keep while the files stay as
 *   they were;
 * - where the text is said ({@link Found}: an excerpt per matching record),
 *   found while the index is built (the lines that may hold the text are
 *   parsed once, from their exact text, and handed over whole; see
 *   {@link hitObserver}), or, from stored facts, by reading only the lines
 *   of searched records whose bytes may hold it ({@link findInFile}).
 *
 * Both rest on {@link Matcher.prefilter}, a test on raw bytes that a line
 * holding a match always passes, so most lines and files are never parsed.
 */
import { isAscii } from 'node:buffer';
import { parseLine, parseObject } from '../parse-line.js';
import { type ByteSource, scanLineViews, someLatin1Piece } from '../reader.js';
import type { RecordSummary } from '../records.js';
import { resumedMessages, resumeModel } from '../resume.js';
import { type LineObserver, type SessionIndex, latin1Exact } from '../session-index.js';
import type { JsonObject } from '../types.js';
import { launchCwd, resumeCommand, spokenText } from './conversation.js';
import { factsOf, titleOf } from './sessions.js';

/** Finds the first match in a text, and says which raw bytes may hold one. */
export interface Matcher {
  find(text: string): { readonly start: number; readonly end: number } | undefined;
  /**
   * A test on raw transcript bytes read as Latin-1 (one character per byte)
   * that passes on every line holding a record whose said text matches,
   * whatever JSON escapes the writer chose: a line or file that fails it
   * need not be parsed. Undefined when no such test is known (a regular
   * expression; a needle without a printable ASCII character).
   */
  readonly prefilter: RegExp | undefined;
  /** The most bytes one prefilter match spans. */
  readonly prefilterBytes: number;
}

/** Printable ASCII other than `"` and `\`: what JSON lets a writer keep as it is. */
const VERBATIM = /[\x20\x21\x23-\x5b\x5d-\x7e]+/g;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * The prefilter of a plain, case-insensitive needle: its longest run of
 * characters JSON may write as they are, in any case.
 *
 * Why it is sound: a record whose text holds the needle (after
 * `toLowerCase`) holds each character of the run too, written in its line
 * either as itself, in some case, or escaped. Only two characters outside
 * ASCII lower-case to an ASCII one: U+212A KELVIN SIGN to `k`, U+0130 to
 * `i` (and a combining dot); their UTF-8 bytes are allowed in place of the
 * letter. The escapes JSON allows for a run character are `\uXXXX` (for
 * U+0020 to U+007F, U+212A, U+0130) and `\/`: any line that has one passes
 * too. Claude Code writes none of them (JSON.stringify escapes only quotes,
 * backslashes and control characters), so in practice the test is the run,
 * in any case. Over Latin-1 text a case-insensitive literal matches just
 * those bytes: no byte from 0x80 up folds to an ASCII letter.
 */
function plainPrefilter(lower: string): { prefilter: RegExp | undefined; prefilterBytes: number } {
  let run = '';
  for (const m of lower.matchAll(VERBATIM)) if (m[0].length > run.length) run = m[0];
  if (run === '') return { prefilter: undefined, prefilterBytes: 0 };
  let bytes = 0;
  const letters = [...run].map((ch) => {
    if (ch === 'k') {
      bytes += 3;
      return '(?:k|\\u00e2\\u0084\\u00aa)';
    }
    if (ch === 'i') {
      bytes += 2;
      return '(?:i|\\u00c4\\u00b0)';
    }
    bytes += 1;
    return escapeRegex(ch);
  });
  const escapes = ['\\\\u(?:00[2-7][0-9a-f]|212a|0130)', ...(run.includes('/') ? ['\\\\\\/'] : [])];
  return { prefilter: new RegExp([letters.join(''), ...escapes].join('|'), 'i'), prefilterBytes: Math.max(bytes, 6) };
}

/** A UTF-16 surrogate: a text without one is all BMP, one code unit per character. */
const SURROGATE = /[\ud800-\udfff]/;

/** Code units `toLowerCase` turns each BMP character into (0: not yet known), filled as characters are met. */
let bmpWidths: Uint8Array | undefined;
/** The same for the characters above the BMP met so far (emoji, mostly). */
const astralWidths = new Map<number, number>();

/** How many code units `toLowerCase` turns one code point into. */
function loweredWidth(cp: number): number {
  if (cp > 0xffff) {
    let w = astralWidths.get(cp);
    if (w === undefined) {
      w = String.fromCodePoint(cp).toLowerCase().length;
      if (astralWidths.size < 4096) astralWidths.set(cp, w);
    }
    return w;
  }
  bmpWidths ??= new Uint8Array(0x10000);
  let w = bmpWidths[cp] as number;
  if (w === 0) {
    w = String.fromCharCode(cp).toLowerCase().length;
    bmpWidths[cp] = w;
  }
  return w;
}

/**
 * The span of `text` that the span `at`..`end` of `text.toLowerCase()`
 * came from. `toLowerCase` maps each code point on its own to one or more
 * code units (its one context rule, Final_Sigma, picks between two
 * one-unit sigmas), but not always as many as it had: U+0130 `İ` becomes
 * `i̇`, two. A folded span that starts or ends inside what one character
 * became is widened to the whole character, so the span always slices out
 * whole original characters.
 */
function originalSpan(text: string, at: number, end: number): { start: number; end: number } {
  let start = 0;
  let folded = 0; // where the character at `i` starts in the folded text
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    let units = 1;
    let width = 1;
    if (c >= 0x80) {
      const cp = text.codePointAt(i) as number;
      if (cp > 0xffff) units = 2;
      width = loweredWidth(cp);
    }
    if (folded <= at) start = i;
    folded += width;
    i += units;
    if (folded >= end) return { start, end: i };
  }
  return { start, end: text.length };
}

/**
 * Plain text, case-insensitive: the text holds the needle once both are
 * lower-cased. The match is found in the lower-cased text, and its place is
 * given in the text itself.
 */
export function plainMatcher(needle: string): Matcher {
  const lower = needle.toLowerCase();
  return {
    find(text) {
      if (lower === '') return undefined;
      const folded = text.toLowerCase();
      const at = folded.indexOf(lower);
      if (at < 0) return undefined;
      // Places agree when no character changed length. Equal lengths say so
      // only for a text of BMP characters (each one unit, none lower-cased to
      // nothing): with surrogates, one that grows could hide one that shrinks.
      if (folded.length === text.length && !SURROGATE.test(text)) return { start: at, end: at + lower.length };
      return originalSpan(text, at, at + lower.length);
    },
    ...plainPrefilter(lower),
  };
}

/** A JavaScript regular expression (case-insensitive unless it has an upper-case letter: smart case). */
export function regexMatcher(source: string): Matcher {
  const re = new RegExp(source, /[A-Z]/.test(source.replace(/\\./g, '')) ? 'gu' : 'giu');
  return {
    find(text) {
      // The first match that holds something: `l*` or `\d*` match the empty
      // text at the very start, and taking that one (which shows nothing)
      // missed every real match after it.
      re.lastIndex = 0;
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (m[0] !== '') return { start: m.index, end: m.index + m[0].length };
        re.lastIndex = m.index + ((text.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1);
      }
      return undefined;
    },
    prefilter: undefined,
    prefilterBytes: 0,
  };
}

/** Whether some line of the bytes may hold a match (true when the matcher cannot tell). */
export function mayMatch(source: ByteSource, matcher: Matcher): boolean {
  const { prefilter } = matcher;
  if (prefilter === undefined) {
    source.close();
    return true;
  }
  return someLatin1Piece(source, matcher.prefilterBytes - 1, (latin1) => prefilter.test(latin1));
}

/**
 * Where a hit lies: on the conversation resume loads, on history resume
 * loses to a break, on a branch left at a rewind or fork, or in a sidechain
 * (a subagent's thread).
 */
export type HitPlace = 'resumed' | 'lost' | 'abandoned' | 'sidechain';

/** The excerpt around a match, on one line: before, the match, after. */
export interface Excerpt {
  readonly before: string;
  readonly match: string;
  readonly after: string;
}

export interface SearchHit extends Excerpt {
  readonly uuid: string | undefined;
  readonly type: string;
  readonly time: number;
  readonly line: number;
  readonly filePath: string;
  readonly place: HitPlace;
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

/** Whether `at` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, at: number): boolean {
  const low = text.charCodeAt(at);
  const high = text.charCodeAt(at - 1);
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
}

/** The excerpt of `start`..`end` (places in `text`): up to CONTEXT code units each side, whole characters only. */
function excerpt(text: string, start: number, end: number): Excerpt {
  let from = Math.max(0, start - CONTEXT);
  let to = Math.min(text.length, end + CONTEXT);
  if (from > 0 && splitsPair(text, from)) from++;
  if (to < text.length && splitsPair(text, to)) to--;
  return {
    before: (from > 0 ? '…' : '') + line(text.slice(from, start)).trimStart(),
    match: line(text.slice(start, end)),
    after: line(text.slice(end, to)).trimEnd() + (to < text.length ? '…' : ''),
  };
}

/** The excerpt of a record's first match, if its said text matches; `latin1` as for {@link LineObserver.record}. */
function excerptOf(value: JsonObject, matcher: Matcher, latin1 = false): Excerpt | undefined {
  const said = spokenText(value);
  if (said === '') return undefined;
  const text = latin1 ? Buffer.from(said, 'latin1').toString('utf8') : said;
  const found = matcher.find(text);
  return found === undefined ? undefined : excerpt(text, found.start, found.end);
}

/**
 * The records of a line are told apart by their place on it: more than one
 * only in a recovered glued line, so the first is keyed by its line number
 * alone (a look-up per searched record, on every session with a hit).
 */
function recordKey(line: number, nth: number): number | string {
  return nth === 0 ? line : `${line}:${nth}`;
}

/** The matching records of one file: `recordKey(line, nth)` → excerpt. */
export type Found = ReadonlyMap<number | string, Excerpt>;

/**
 * Collects the matches of one file while its index is built: the lines the
 * prefilter lets through are parsed once, exactly, and their records'
 * said text searched.
 */
export function hitObserver(matcher: Matcher): { readonly observer: LineObserver; readonly found: Found } {
  const found = new Map<number | string, Excerpt>();
  const { prefilter } = matcher;
  let lastLine = 0;
  let nth = 0;
  return {
    found,
    observer: {
      wants: prefilter === undefined ? () => true : (latin1) => prefilter.test(latin1),
      record(summary, value, latin1) {
        nth = summary.line === lastLine ? nth + 1 : 0;
        lastLine = summary.line;
        const hit = excerptOf(value, matcher, latin1);
        if (hit !== undefined) found.set(recordKey(summary.line, nth), hit);
      },
    },
  };
}

/** A record a search looks at, as stored: enough to name a hit without the index. */
export interface SearchedRecord {
  readonly line: number;
  /** Its place among the records of its line. */
  readonly nth: number;
  readonly uuid: string | undefined;
  readonly type: string;
  readonly time: number;
  readonly place: HitPlace;
}

/** What a search needs of a session, whatever the text: plain data, kept by a cache. */
export interface SearchFacts {
  /** Absolute path of the file that speaks for the session. */
  readonly mainPath: string;
  readonly sessionId: string;
  readonly title: string;
  readonly cwd: string | undefined;
  readonly lastTime: number;
  /** Per file (absolute path), the records searched, in the order their hits are listed. */
  readonly files: ReadonlyArray<{ readonly path: string; readonly records: readonly SearchedRecord[] }>;
}

function isSaid(r: RecordSummary): boolean {
  return (r.type === 'user' || r.type === 'assistant') && !r.isMeta;
}

/**
 * Whether a record can have said text at all: a user or assistant row says
 * nothing without a text block (its summary's `blocks` has `t` or `b`; a
 * string content is one), as a tool call or a tool result alone does. Such
 * rows, and the long lines of tool output they sit on, are left out of the
 * records a search reads again.
 */
function maySay(r: RecordSummary): boolean {
  return (r.type !== 'user' && r.type !== 'assistant') || r.blocks.includes('t') || r.blocks.includes('b');
}

function searched(index: SessionIndex, r: RecordSummary, place: HitPlace): SearchedRecord {
  let first = r.ordinal;
  while (first > 0 && index.records[first - 1]?.line === r.line) first--;
  return { line: r.line, nth: r.ordinal - first, uuid: r.uuid, type: r.type, time: r.time, place };
}

/**
 * The facts of one session group: `indexes` are its files, main file first
 * when there is one, linked (for `all`, whose places depend on parents in
 * other files). Undefined when there is nothing to search: no main file
 * (without `all`).
 */
export function searchFacts(indexes: readonly SessionIndex[], options: { readonly all: boolean }): SearchFacts | undefined {
  const main = indexes.find((i) => i.file.role === 'main') ?? (options.all ? indexes[0] : undefined);
  if (main === undefined) return undefined;
  const files: Array<{ path: string; records: SearchedRecord[] }> = [];
  if (!options.all) {
    if (main.file.role === 'main') files.push({ path: main.file.path, records: resumedMessages(main).filter(maySay).map((r) => searched(main, r, 'resumed')) });
  } else {
    const resume = resumeModel(main);
    const loaded = new Set(resume.messages);
    const intended = new Set(resume.intendedMessages);
    for (const index of indexes) {
      const records: SearchedRecord[] = [];
      for (const r of index.effectiveRecords()) {
        if (!isSaid(r) || !maySay(r)) continue;
        // A subagent's transcript is a sidechain; a transcript outside the
        // layout (not named by its session id) has a conversation of its own.
        const agent = index.file.role === 'subagent' || index.file.role === 'legacy-agent';
        const place: HitPlace = agent || r.isSidechain ? 'sidechain' : loaded.has(r) ? 'resumed' : intended.has(r) ? 'lost' : 'abandoned';
        if (index !== main && place !== 'sidechain') continue;
        records.push(searched(index, r, place));
      }
      files.push({ path: index.file.path, records });
    }
  }
  const facts = factsOf(main);
  const sessionId = main.file.layoutSessionId ?? facts.sessionId ?? '';
  return { mainPath: main.file.path, sessionId, title: titleOf(facts), cwd: launchCwd(main), lastTime: facts.lastTime, files };
}

/**
 * Finds, in a file whose facts are known, the searched records that match:
 * only the lines holding one of `records` and passing the prefilter are
 * decoded and parsed, the way the index would have parsed them.
 */
export function findInFile(source: ByteSource, records: readonly SearchedRecord[], matcher: Matcher): Found {
  const found = new Map<number | string, Excerpt>();
  if (records.length === 0) {
    source.close();
    return found;
  }
  const wanted = new Set<number>();
  for (const r of records) wanted.add(r.line);
  const { prefilter } = matcher;
  scanLineViews(source, (view) => {
    const bytes = view.bytes;
    if (!wanted.has(view.line) || bytes === undefined) return;
    const latin1 = bytes.toString('latin1', view.start, view.end);
    if (prefilter !== undefined && !prefilter.test(latin1)) return;
    // One object, its strings readable from the Latin-1 parse (as the index reads it); else the exact text.
    const ascii = isAscii(bytes.subarray(view.start, view.end));
    if (latin1Exact(latin1, ascii)) {
      const value = parseObject(latin1);
      if (value !== undefined) {
        const hit = excerptOf(value, matcher, !ascii);
        if (hit !== undefined) found.set(recordKey(view.line, 0), hit);
        return;
      }
    }
    const parsed = parseLine(view.text(), view.terminated);
    parsed?.records.forEach((value, nth) => {
      const hit = excerptOf(value, matcher);
      if (hit !== undefined) found.set(recordKey(view.line, nth), hit);
    });
  });
  return found;
}

/**
 * The hits of a session: its searched records that matched, in order.
 * `found` gives each file's matches, `shown` its path as the user sees it.
 * Undefined when nothing matched.
 */
export function sessionHits(facts: SearchFacts, found: (path: string) => Found | undefined, shown: (path: string) => string): SessionHits | undefined {
  const hits: SearchHit[] = [];
  for (const file of facts.files) {
    const matches = found(file.path);
    if (matches === undefined || matches.size === 0) continue;
    for (const r of file.records) {
      const hit = matches.get(recordKey(r.line, r.nth));
      if (hit === undefined) continue;
      hits.push({ uuid: r.uuid, type: r.type, time: r.time, line: r.line, filePath: shown(file.path), place: r.place, ...hit });
    }
  }
  if (hits.length === 0) return undefined;
  return {
    sessionId: facts.sessionId,
    filePath: shown(facts.mainPath),
    title: facts.title,
    cwd: facts.cwd,
    lastTime: facts.lastTime,
    command: resumeCommand(facts.cwd, facts.sessionId),
    hits,
  };
}
