/**
 * The read-only view of one transcript file that rules, the resume model and
 * the fixer share. It is built in one streaming pass and never holds parsed
 * record bodies: only {@link RecordSummary} values, a line table, and lazily
 * computed graph structure (children, ancestry) over them.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { ListTable } from './collections.js';
import { canonicalJsonText, jsonTextOfAnyDepth } from './json-text.js';
import { type ByteSource, type LineView, type ReadStats, readFully, scanLineViews } from './reader.js';
import { type InvalidReason, parseLine, parseObject } from './parse-line.js';
import {
  type RecordSummary,
  type InternedField,
  MESSAGE_ID_FIELD,
  PARENT_UUID_FIELD,
  type Recovery,
  CHAIN_TYPES,
  isCompactBoundary,
  judgedByWholeText,
  summarize,
} from './records.js';
import type { JsonObject } from './types.js';

/** Where a file sits in Claude Code's layout (format.md §1.3). */
export type FileRole = 'main' | 'subagent' | 'legacy-agent' | 'other';

export interface SessionFile {
  /** Absolute path. */
  readonly path: string;
  /** The path as shown to the user (relative to cwd where shorter). */
  readonly displayPath: string;
  readonly role: FileRole;
  /** The project folder: the folder whose name is the project key. */
  readonly projectDir: string;
  readonly projectFolderName: string;
  /** The session id the layout implies (file stem, or the `<sid>/subagents` folder). */
  readonly layoutSessionId: string | undefined;
  /** Named on the command line (not found by walking a folder). */
  readonly explicit?: boolean | undefined;
}

export interface InvalidLine {
  readonly line: number;
  readonly offset: number;
  readonly byteLength: number;
  readonly reason: InvalidReason;
  /** Records recovered from the line (NUL-stripped or split). */
  readonly recoveredRecords: number;
  readonly terminated: boolean;
}

/** Where a parent that is not in this file was found instead. */
export type ExternalParent =
  | { readonly kind: 'main-session'; readonly path: string }
  | { readonly kind: 'subagent'; readonly path: string }
  | { readonly kind: 'other-session'; readonly path: string }
  /** A subagent file whose main session file does not exist. */
  | { readonly kind: 'main-missing' };

export interface LineStats extends ReadStats {
  readonly blankLines: number;
  readonly crlfLines: number;
  /**
   * Lines that are not one JSON object and hold a NUL byte or bytes that are
   * not UTF-8: what a binary file is made of (see transcript.ts). Counted on
   * damaged lines only, so a healthy transcript never pays for it.
   */
  readonly binaryLines: number;
  /**
   * The last compact boundary without preserved info that the SDK reader's
   * pre-compaction skip recognises (0 when none); for files over 5 MiB it
   * drops every line before it.
   */
  readonly lastSkipBoundaryLine: number;
}

/**
 * Where each physical line of an indexed text lies: what a repair needs to
 * rewrite lines of it, kept apart from the index so that it can outlive it.
 */
export interface LineTable {
  readonly lineCount: number;
  /** Byte offset of line `n` (1-based), its first byte (a BOM included). */
  offset(line: number): number;
  /** Bytes of line `n` up to its `\n` (a `\r` before it included). */
  length(line: number): number;
  /** Whether line `n` ends in `\n`. */
  terminated(line: number): boolean;
  readonly hasBom: boolean;
}

/**
 * What an index knows of a file's bytes up to `stats.byteLength`: what
 * {@link SessionIndex.build} needs to read on from there. A
 * {@link SessionIndex.checkpoint} covers the file's first bytes and ends
 * with a complete line; a {@link SessionIndex.part} may end with a torn one
 * and, for a part read alone, start mid-file with its own lines and records
 * numbered from 1 and 0 (see checkpoint.ts, split-parse.ts).
 */
export interface IndexCheckpoint {
  /** In file order; each one's ordinal is its position. */
  readonly records: readonly RecordSummary[];
  /** Every damaged line but a BOM's (the build adds that entry). */
  readonly invalidLines: readonly InvalidLine[];
  readonly stats: LineStats;
  /** By line number, 0 unused: each line's offset and length (see {@link LineTable}). */
  readonly lineOffsets: Float64Array;
  readonly lineLengths: Float64Array;
  /** By ordinal, each record's parent's ordinal or -1, when known (a build from the checkpoint finds them again). */
  readonly parentOrdinals: Int32Array | undefined;
}

/** See {@link SessionIndex.childrenOf}. */
interface ChildTable {
  /** Children of the record with ordinal `o` are `children[start[o]]` up to `children[start[o + 1]]`. */
  readonly start: Int32Array;
  /** Child ordinals, grouped by parent, in file order within a group. */
  readonly children: Int32Array;
  /** Children of a parent uuid that names no record of this file. */
  readonly ofMissing: ReadonlyMap<string, readonly RecordSummary[]>;
}

const NO_RECORDS: readonly RecordSummary[] = Object.freeze([]);

const NON_ASCII = /[^\u0000-\u007f]/;

/** No string anywhere in `value` (a record summary) has a character above U+007F. */
function asciiOnly(value: unknown): boolean {
  if (typeof value === 'string') return !NON_ASCII.test(value);
  if (Array.isArray(value)) return value.every(asciiOnly);
  if (value !== null && typeof value === 'object') return Object.values(value).every(asciiOnly);
  return true;
}

/**
 * The summary of a line that holds one valid JSON object, parsed from its
 * Latin-1 decoding, or why the line must take the exact path.
 *
 * Why: a line with any non-ASCII byte decodes from UTF-8 into a two-byte
 * string, which costs more to make and more to parse than a one-byte string,
 * and those lines (file contents, prose, emoji) hold about half of a
 * typical transcript's bytes. Latin-1 decoding maps each byte to one
 * character, so the string is one-byte and JSON.parse is about a quarter
 * faster, while the structure it parses is the same: every JSON token
 * outside strings is ASCII, and a byte above 0x7F is allowed inside a
 * string and nowhere else in either decoding. Only the text of strings
 * with non-ASCII bytes differs (mojibake), so the result is kept when
 *
 * - the line is all ASCII (then both decodings are the same string), or
 * - no string of the summary has a non-ASCII character, and `summarize`
 *   did not judge the record by a whole text ({@link judgedByWholeText}):
 *   otherwise it reads texts only through prefixes and equality with ASCII
 *   constants (interrupt markers, command tags, quiet replies), which give
 *   the same answer on both decodings when what they return is ASCII.
 *
 * Anything else is decoded again as UTF-8: `'utf8'` says the line is one
 * object whose summary must come from that decoding, `'damaged'` that it is
 * not one JSON object at all (the same under either decoding), for
 * `parseLine` to diagnose. `test/core/latin1.test.ts` checks that both paths
 * agree on every corpus line and on non-ASCII edge cases.
 */
export function summarizeLatin1(
  bytes: Buffer,
  start: number,
  end: number,
  line: number,
  ordinal: number,
  intern: (s: string | undefined, field: InternedField) => string | undefined,
): RecordSummary | 'utf8' | 'damaged' {
  return summarizeDecoded(bytes.toString('latin1', start, end), bytes, start, end, line, ordinal, intern);
}

/** {@link summarizeLatin1} of a line already decoded as Latin-1. */
function summarizeDecoded(
  latin1: string,
  bytes: Buffer,
  start: number,
  end: number,
  line: number,
  ordinal: number,
  intern: (s: string | undefined, field: InternedField) => string | undefined,
): RecordSummary | 'utf8' | 'damaged' {
  let value: unknown;
  try {
    value = JSON.parse(latin1);
  } catch {
    return 'damaged';
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'damaged';
  const summary = summarize(value as JsonObject, line, ordinal, undefined, intern);
  if (isAscii(bytes.subarray(start, end))) return summary;
  return !judgedByWholeText(summary) && asciiOnly(summary) ? summary : 'utf8';
}

/**
 * Looks at whole records while an index is built, for a reader that needs
 * more of some lines than their summaries (search): the lines it wants are
 * parsed from their exact UTF-8 text, and each of their records is handed
 * over with its summary, so that nothing is parsed twice.
 */
export interface LineObserver {
  /** Whether the records of a line are wanted; `latin1` is the line decoded as Latin-1. */
  wants(latin1: string): boolean;
  /**
   * A record of a wanted line (recovered ones too). With `latin1`, the
   * record was parsed from the line's Latin-1 reading: every string in it
   * holds the UTF-8 bytes of its text, one character per byte, and becomes
   * its text with `Buffer.from(s, 'latin1').toString('utf8')` (see
   * {@link SessionIndex.build}). `value` is valid only during the call.
   */
  record(summary: RecordSummary, value: JsonObject, latin1: boolean): void;
}

/**
 * A `\u` escape of a character from U+0080 up. Without one, every string a
 * Latin-1 parse of a line gives is made of bytes (escapes of ASCII read the
 * same either way), so its text is exactly its bytes decoded as UTF-8.
 */
const WIDE_ESCAPE = /\\u(?!00[0-7])/;

/**
 * Whether the strings a Latin-1 parse of a line gives are its strings' UTF-8
 * bytes, one character per byte (see {@link LineObserver.record}): the line
 * is ASCII, or escapes no character from U+0080 up.
 */
export function latin1Exact(latin1: string, ascii: boolean): boolean {
  return ascii || !WIDE_ESCAPE.test(latin1);
}

/** `"compact_boundary"`, and how a system row's line starts, as Claude Code writes them. */
const BOUNDARY_MARKER = Buffer.from('"compact_boundary"');
const SYSTEM_ROW_START = Buffer.from('{"type":"system"');

/** The digest {@link SessionIndex.bodyDigest} compares: SHA-1 of the compact JSON, any depth. */
function digestOf(body: JsonObject | undefined): string {
  return sha1Of(jsonTextOfAnyDepth(body ?? null));
}

function sha1Of(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

/** How many sources stay open for reading lines back (see `SessionIndex.readSource`). */
export const MAX_OPEN_SOURCES = 4;

interface PooledSource {
  readonly source: ByteSource;
  closed: boolean;
}

const openSources: PooledSource[] = [];

function closePooled(pooled: PooledSource): void {
  const at = openSources.indexOf(pooled);
  if (at !== -1) openSources.splice(at, 1);
  if (pooled.closed) return;
  pooled.closed = true;
  pooled.source.close();
}

export class SessionIndex {
  readonly file: SessionFile;
  readonly records: readonly RecordSummary[];
  readonly invalidLines: readonly InvalidLine[];
  readonly stats: LineStats;
  /** The effective record per uuid: the last body, as Claude Code keeps it. */
  readonly byUuid: ReadonlyMap<string, RecordSummary>;
  /** Every uuid that occurs on more than one record, with all occurrences. */
  readonly duplicates: ReadonlyMap<string, readonly RecordSummary[]>;
  private readonly lineOffsets: Float64Array;
  private readonly lineLengths: Float64Array;
  /**
   * By ordinal: the ordinal of the record {@link parentOf} returns, -1 for
   * none. Filled while the file is read, when the parent's map entry has
   * just been written (a lookup after the build misses the processor's
   * caches on a big session: one pass of lookups cost a second on 1.5
   * million records), and settled at the end for parents written later and
   * repeated uuids.
   */
  private readonly parentOrdinals: Int32Array;
  private readonly openSource: () => ByteSource;
  private source: PooledSource | undefined;
  private bodyDigests: Map<RecordSummary, string> | undefined;
  private externalParents = new Map<string, ExternalParent>();
  private childrenCache: ChildTable | undefined;
  private ancestryCache: { enter: Int32Array; exit: Int32Array } | undefined;
  private segmentCache: Int32Array | undefined;
  private effectiveCache: readonly RecordSummary[] | undefined;
  /** Per ordinal: 0 not yet asked, 1 parent found, 2 parent missing. */
  private missingParentCache: Uint8Array | undefined;
  private unresolvedCache: ReadonlySet<string> | undefined;
  private responseCache: ListTable<string, RecordSummary> | undefined;

  private constructor(init: {
    file: SessionFile;
    records: RecordSummary[];
    invalidLines: InvalidLine[];
    stats: LineStats;
    byUuid: Map<string, RecordSummary>;
    duplicates: Map<string, RecordSummary[]>;
    lineOffsets: Float64Array;
    lineLengths: Float64Array;
    parentOrdinals: Int32Array;
    openSource: () => ByteSource;
  }) {
    this.file = init.file;
    this.records = init.records;
    this.invalidLines = init.invalidLines;
    this.stats = init.stats;
    this.byUuid = init.byUuid;
    this.duplicates = init.duplicates;
    this.lineOffsets = init.lineOffsets;
    this.lineLengths = init.lineLengths;
    this.parentOrdinals = init.parentOrdinals;
    this.openSource = init.openSource;
  }

  /**
   * Reads the file once and summarises every line; `observer` sees the
   * records of the lines it wants. With `from`, reads only the bytes after
   * what it covers and takes its records in first: given a
   * {@link checkpoint} of an index of the same file's first bytes (which the
   * caller has checked are unchanged), the index is the one a read from the
   * start would build. An observer cannot be given with `from`: it would
   * not see the lines before it.
   */
  static build(file: SessionFile, openSource: () => ByteSource, observer?: LineObserver, from?: IndexCheckpoint): SessionIndex {
    if (from !== undefined && observer !== undefined) throw new Error('an index built from a checkpoint has no observer');
    const records: RecordSummary[] = [];
    const invalidLines: InvalidLine[] = from === undefined ? [] : [...from.invalidLines];
    const byUuid = new Map<string, RecordSummary>();
    let duplicates: Map<string, RecordSummary[]> | undefined;
    const interned = new Map<string, string>();
    // Consecutive records nearly always repeat the value just seen in the
    // same field: one string comparison instead of hashing a fresh copy.
    // (A parent uuid is looked up in byUuid instead: it has no slot here.)
    const lastInterned: Array<string | undefined> = [undefined, undefined];
    // A 1 GB session has 300,000 records; each parsed copy of a uuid is a
    // 56-byte string of its own. A parent uuid takes the string of the
    // record it names (whose hash every later map lookup then reuses), and a
    // message.id the previous response row's; neither goes in `interned`,
    // which would keep every one of them.
    // The record the latest parent lookup found: summarize asks for the
    // parent's string before the summary is added, and addSummary takes the
    // record from here instead of looking the uuid up a second time.
    let parentFound: RecordSummary | undefined;
    const intern = (s: string | undefined, field: InternedField): string | undefined => {
      if (s === undefined) return undefined;
      if (field === PARENT_UUID_FIELD) {
        parentFound = byUuid.get(s);
        return parentFound?.uuid ?? s;
      }
      const last = lastInterned[field];
      if (s === last) return last;
      if (field === MESSAGE_ID_FIELD) {
        lastInterned[field] = s;
        return s;
      }
      let existing = interned.get(s);
      if (existing === undefined) {
        interned.set(s, s);
        existing = s;
      }
      lastInterned[field] = existing;
      return existing;
    };
    const lineCapacity = Math.max(1024, 2 ** Math.ceil(Math.log2((from?.stats.lineCount ?? 0) + 1)));
    let offsets = new Float64Array(lineCapacity);
    let lengths = new Float64Array(lineCapacity);
    let parents = new Int32Array(Math.max(1024, from?.records.length ?? 0));
    // Ordinals whose parent no record read so far holds: looked up again at the end.
    const laterParents: number[] = [];
    let blankLines = from?.stats.blankLines ?? 0;
    let crlfLines = from?.stats.crlfLines ?? 0;
    let binaryLines = from?.stats.binaryLines ?? 0;
    let lastSkipBoundaryLine = from?.stats.lastSkipBoundaryLine ?? 0;

    // The line being read is one the observer wants.
    let observed = false;
    const addRecord = (obj: JsonObject, raw: LineView, recovery: Recovery | undefined): void => {
      const summary = summarize(obj, raw.line, records.length, recovery, intern);
      addSummary(summary, raw);
      if (observed) observer?.record(summary, obj, false);
    };
    /** Takes a record into the index's tables: its ordinal, its parent, its uuid. */
    const register = (summary: RecordSummary): void => {
      const ordinal = records.length;
      records.push(summary);
      if (ordinal >= parents.length) {
        const grown = new Int32Array(parents.length * 2);
        grown.set(parents);
        parents = grown;
      }
      const parentUuid = summary.parentUuid;
      // (The latest lookup may have been of another field's uuid, which the
      // uuid of what it found tells.)
      const parent =
        typeof parentUuid !== 'string' ? undefined : parentFound?.uuid === parentUuid ? parentFound : byUuid.get(parentUuid);
      parentFound = undefined;
      parents[ordinal] = parent === undefined ? -1 : parent.ordinal;
      if (parent === undefined && typeof parentUuid === 'string') laterParents.push(ordinal);
      if (summary.uuid !== undefined) {
        const previous = byUuid.get(summary.uuid);
        if (previous !== undefined) {
          duplicates ??= new Map();
          const group = duplicates.get(summary.uuid);
          if (group === undefined) duplicates.set(summary.uuid, [previous, summary]);
          else group.push(summary);
        }
        byUuid.set(summary.uuid, summary);
      }
    };
    const addSummary = (summary: RecordSummary, raw: LineView): void => {
      register(summary);
      if (summary.type === 'system' && summary.subtype === 'compact_boundary' && summary.preserved === undefined) {
        // The SDK reader's > 5 MiB pre-compaction skip only sees a boundary
        // whose marker starts within the line's first 256 bytes, and a
        // line across a 1 MiB border only when it starts like a system row.
        const MiB = 1024 * 1024;
        const end = raw.offset + raw.byteLength;
        const straddles = Math.floor(raw.offset / MiB) !== Math.floor(end / MiB);
        // A record always comes from a line the reader could hand over whole.
        const line = (raw.bytes as Buffer).subarray(raw.start, raw.end);
        const visible =
          raw.terminated &&
          (straddles
            ? (Math.floor(raw.offset / MiB) + 1) * MiB - raw.offset >= 30 &&
              line.subarray(0, SYSTEM_ROW_START.length).equals(SYSTEM_ROW_START)
            : Math.max(0, line.indexOf(BOUNDARY_MARKER)) < 256);
        if (visible) lastSkipBoundaryLine = raw.line;
      }
    };

    /** A line that is not one JSON object (or too long to decode): what can be recovered, and why. */
    const addDamagedLine = (raw: LineView, text: string | undefined): void => {
      const parsed = parseLine(text, raw.terminated);
      if (parsed === undefined) {
        blankLines++;
        return;
      }
      if (raw.bytes !== undefined) {
        const bytes = raw.bytes.subarray(raw.start, raw.end);
        if (bytes.includes(0) || !isUtf8(bytes)) binaryLines++;
      }
      if (parsed.invalid !== undefined) {
        invalidLines.push({
          line: raw.line,
          offset: raw.offset,
          byteLength: raw.byteLength,
          reason: parsed.invalid,
          recoveredRecords: parsed.recovered !== undefined ? parsed.records.length : 0,
          terminated: raw.terminated,
        });
      }
      const recovery =
        parsed.recovered === 'leading'
          ? 'nul-leading'
          : parsed.recovered === 'strip'
            ? 'nul-stripped'
            : parsed.recovered === 'split'
              ? 'glued-split'
              : undefined;
      for (const obj of parsed.records) addRecord(obj, raw, recovery);
    };

    if (from !== undefined) {
      offsets.set(from.lineOffsets.subarray(0, from.stats.lineCount + 1));
      lengths.set(from.lineLengths.subarray(0, from.stats.lineCount + 1));
      // In file order, as they were read: each finds the parents read before it.
      for (const summary of from.records) register(summary);
    }
    const stats = scanLineViews(openSource(), (raw) => {
      if (raw.line >= offsets.length) {
        const grownOffsets = new Float64Array(offsets.length * 2);
        grownOffsets.set(offsets);
        offsets = grownOffsets;
        const grownLengths = new Float64Array(lengths.length * 2);
        grownLengths.set(lengths);
        lengths = grownLengths;
      }
      offsets[raw.line] = raw.offset;
      lengths[raw.line] = raw.byteLength;
      if (raw.crlf) crlfLines++;
      const bytes = raw.bytes;
      if (bytes === undefined) return addDamagedLine(raw, undefined);
      const latin1 = bytes.toString('latin1', raw.start, raw.end);
      if (observer !== undefined && observer.wants(latin1)) {
        // Parsed once, and its records go to the observer whole: from the
        // Latin-1 reading as usual when its strings can be told exactly
        // from it (see summarizeLatin1 for when the summary can be kept),
        // else from the UTF-8 text.
        const ascii = isAscii(bytes.subarray(raw.start, raw.end));
        if (latin1Exact(latin1, ascii)) {
          const value = parseObject(latin1);
          if (value !== undefined) {
            const summary = summarize(value, raw.line, records.length, undefined, intern);
            if (ascii || (!judgedByWholeText(summary) && asciiOnly(summary))) {
              addSummary(summary, raw);
              observer.record(summary, value, !ascii);
              return;
            }
          }
        }
        const text = ascii ? latin1 : (raw.text() as string);
        observed = true;
        try {
          const value = parseObject(text);
          if (value !== undefined) addRecord(value, raw, undefined);
          else addDamagedLine(raw, text);
        } finally {
          observed = false;
        }
        return;
      }
      const fast = summarizeDecoded(latin1, bytes, raw.start, raw.end, raw.line, records.length, intern);
      if (typeof fast !== 'string') return addSummary(fast, raw);
      const text = raw.text() as string;
      if (fast === 'damaged') return addDamagedLine(raw, text);
      // One object under either decoding, as summarizeLatin1 found.
      addRecord(JSON.parse(text) as JsonObject, raw, undefined);
    }, from?.stats);
    // Settle the parents the file order could not: written after their
    // child, or a uuid a later record repeats (the map keeps the last).
    const parentOf = (o: number): number => {
      const parentUuid = (records[o] as RecordSummary).parentUuid as string;
      return byUuid.get(parentUuid)?.ordinal ?? -1;
    };
    for (const o of laterParents) parents[o] = parentOf(o);
    if (duplicates !== undefined) {
      // A parent found when its child was read may be a copy a later one
      // replaced in the map: marked by ordinal, so that finding those
      // children hashes nothing.
      const replaced = new Uint8Array(records.length);
      for (const copies of duplicates.values()) for (let i = 0; i < copies.length - 1; i++) replaced[(copies[i] as RecordSummary).ordinal] = 1;
      for (let o = 0; o < records.length; o++) {
        const p = parents[o] as number;
        if (p >= 0 && replaced[p] === 1) parents[o] = parentOf(o);
      }
    }
    if (stats.hasBom) {
      invalidLines.unshift({
        line: 1,
        offset: 0,
        byteLength: lengths[1] ?? 0,
        reason: 'bom',
        recoveredRecords: 0,
        terminated: stats.lineCount > 1 || stats.endsWithNewline,
      });
    }
    return new SessionIndex({
      file,
      records,
      invalidLines,
      stats: { ...stats, blankLines, crlfLines, binaryLines, lastSkipBoundaryLine },
      byUuid,
      duplicates: duplicates ?? new Map(),
      lineOffsets: offsets,
      lineLengths: lengths,
      parentOrdinals: parents,
      openSource,
    });
  }

  /**
   * What this index knows, to go on reading its file where it ended
   * ({@link build}'s `from`) once the file has grown; undefined when the
   * file does not end with a complete line (a torn last line may yet be
   * completed, so it is read again) or is empty.
   */
  checkpoint(): IndexCheckpoint | undefined {
    const { stats } = this;
    if (!stats.endsWithNewline || stats.lineCount === 0) return undefined;
    return this.part();
  }

  /**
   * What this index knows, whatever its file ends with: for an index of a
   * part of a file (see `split-parse.ts`), which another index of the part
   * before it takes in.
   */
  part(): IndexCheckpoint {
    const { stats } = this;
    return {
      records: this.records,
      // The BOM's entry is added again by the build that goes on.
      invalidLines: stats.hasBom ? this.invalidLines.slice(1) : this.invalidLines,
      stats,
      lineOffsets: this.lineOffsets.subarray(0, stats.lineCount + 1),
      lineLengths: this.lineLengths.subarray(0, stats.lineCount + 1),
      parentOrdinals: this.parentOrdinals.subarray(0, this.records.length),
    };
  }

  /** The exact bytes of a physical line, without its line ending. */
  lineBytes(line: number): Buffer {
    const offset = this.lineOffsets[line];
    const length = this.lineLengths[line];
    if (offset === undefined || length === undefined || line < 1 || line > this.stats.lineCount) {
      throw new RangeError(`line ${line} is outside ${this.file.displayPath}`);
    }
    const target = Buffer.alloc(length);
    let end = readFully(this.readSource(), target, 0, length, offset);
    if (end > 0 && target[end - 1] === 0x0d && this.lineTerminated(line)) end--;
    let start = 0;
    if (line === 1 && this.stats.hasBom) start = 3;
    return target.subarray(start, end);
  }

  /**
   * The source lines are read back from, opened once and kept open: rules
   * read many lines of one file (every copy of a repeated uuid, say), and an
   * open and a close per line cost more than the read. At most
   * {@link MAX_OPEN_SOURCES} are open at once, across indexes; the least
   * recently used is closed (and opened again if it is read once more). The
   * pool holds the sources, not the indexes, so it keeps no index alive.
   */
  private readSource(): ByteSource {
    const held = this.source;
    if (held !== undefined && !held.closed) {
      const at = openSources.indexOf(held);
      if (at !== openSources.length - 1) openSources.push(...openSources.splice(at, 1));
      return held.source;
    }
    const opened: PooledSource = { source: this.openSource(), closed: false };
    this.source = opened;
    openSources.push(opened);
    while (openSources.length > MAX_OPEN_SOURCES) closePooled(openSources[0] as PooledSource);
    return opened.source;
  }

  /** Closes the source lines are read back from (it is opened again when needed). */
  releaseSource(): void {
    if (this.source !== undefined) closePooled(this.source);
    this.source = undefined;
  }

  /**
   * A digest of the record's body as compact JSON (at any depth). The
   * duplicate-uuid rule and the resume model both compare the bodies of
   * every copy of a repeated uuid, and a session made of one conversation
   * written again and again is all copies: the first ask computes the
   * digests of every such copy in one sequential read of the file
   * ({@link digestRepeatedBodies}), later asks are lookups.
   */
  bodyDigest(record: RecordSummary): string {
    this.bodyDigests ??= this.digestRepeatedBodies();
    let digest = this.bodyDigests.get(record);
    if (digest === undefined) {
      digest = digestOf(this.recordObject(record));
      this.bodyDigests.set(record, digest);
    }
    return digest;
  }

  /**
   * A digest of what the record's message says: its role and content, keys
   * in any order, at any depth. Two bodies of one uuid with equal digests
   * differ only around it (a timestamp, a slug, token usage, key order).
   * Re-reads the line on every ask; for the few copies whose whole bodies
   * differ.
   */
  messageDigest(record: RecordSummary): string {
    const message: unknown = this.recordObject(record)?.message;
    const fields = message !== null && typeof message === 'object' && !Array.isArray(message) ? (message as Record<string, unknown>) : undefined;
    const said = fields === undefined ? message : [fields.role ?? null, fields.content ?? null];
    return sha1Of(canonicalJsonText(said ?? null));
  }

  /**
   * Body digests of the records whose uuid is repeated, read in one pass
   * (not one read per line). A line holding one record and byte-for-byte
   * equal to one already digested has the same body, so repeated copies
   * are parsed once, not once per copy.
   */
  private digestRepeatedBodies(): Map<RecordSummary, string> {
    const digests = new Map<RecordSummary, string>();
    const wanted = new Map<number, RecordSummary>();
    for (const group of this.duplicates.values()) for (const r of group) wanted.set(r.line, r);
    if (wanted.size === 0) return digests;
    const byRawLine = new Map<string, string>();
    scanLineViews(this.openSource(), (raw) => {
      const record = wanted.get(raw.line);
      if (record === undefined || raw.bytes === undefined) return;
      if (this.records[record.ordinal - 1]?.line === record.line || this.records[record.ordinal + 1]?.line === record.line) {
        return; // a line of glued records: each is digested on its own when asked
      }
      const rawKey = createHash('sha1').update(raw.bytes.subarray(raw.start, raw.end)).digest('base64');
      let digest = byRawLine.get(rawKey);
      if (digest === undefined) {
        const parsed = parseLine(raw.bytes.toString('utf8', raw.start, raw.end), raw.terminated);
        digest = digestOf(parsed?.records.length === 1 ? parsed.records[0] : undefined);
        byRawLine.set(rawKey, digest);
      }
      digests.set(record, digest);
    });
    return digests;
  }

  /** A copy of where the lines lie (16 bytes a line), which does not keep the index alive. */
  lineTable(): LineTable {
    const count = this.stats.lineCount;
    const offsets = this.lineOffsets.slice(0, count + 1);
    const lengths = this.lineLengths.slice(0, count + 1);
    const endsWithNewline = this.stats.endsWithNewline;
    return {
      lineCount: count,
      offset: (line) => offsets[line] ?? 0,
      length: (line) => lengths[line] ?? 0,
      terminated: (line) => line < count || endsWithNewline,
      hasBom: this.stats.hasBom,
    };
  }

  /** Byte offset of a physical line. */
  lineOffset(line: number): number {
    return this.lineOffsets[line] ?? 0;
  }

  /** The decoded text of a physical line, without its line ending. */
  lineText(line: number): string {
    return this.lineBytes(line).toString('utf8');
  }

  /** The parsed object of a record, re-read from the file (for fixes). */
  recordObject(record: RecordSummary): JsonObject | undefined {
    const text = this.lineText(record.line);
    const parsed = parseLine(text, this.lineTerminated(record.line));
    if (parsed === undefined) return undefined;
    // The records of one line are contiguous: count back to the line's first.
    let first = record.ordinal;
    while (first > 0 && this.records[first - 1]?.line === record.line) first--;
    return parsed.records[record.ordinal - first];
  }

  lineTerminated(line: number): boolean {
    return line < this.stats.lineCount || this.stats.endsWithNewline;
  }

  /** Records Claude Code's loader keeps in its uuid map (format.md §4). */
  isChainRow(record: RecordSummary): boolean {
    return CHAIN_TYPES.has(record.type) && record.uuid !== undefined;
  }

  /** Called by the group linker before rules run; not part of the rule API. */
  setExternalParents(found: ReadonlyMap<string, ExternalParent>): void {
    this.externalParents = new Map(found);
    this.missingParentCache = undefined;
  }

  /** Where a parent uuid missing from this file lives instead, if anywhere. */
  externalParent(uuid: string): ExternalParent | undefined {
    return this.externalParents.get(uuid);
  }

  /**
   * The record's parentUuid names a record that exists nowhere it could: not
   * in this file, and not in a related file the linker found. The one
   * definition of a phantom parent for rules, resume model, score and fixer.
   */
  hasMissingParent(record: RecordSummary): boolean {
    const parent = record.parentUuid;
    if (typeof parent !== 'string') return false;
    // Asked several times per record (linker, resume model, score, rules).
    this.missingParentCache ??= new Uint8Array(this.records.length);
    const known = this.missingParentCache[record.ordinal];
    if (known !== 0) return known === 2;
    const missing = this.parentOf(record) === undefined && this.externalParents.get(parent) === undefined;
    this.missingParentCache[record.ordinal] = missing ? 2 : 1;
    return missing;
  }

  /**
   * Parent uuids that name no record of this file. Computed once: the
   * linker, the cache's judgement of a group and its lookups all ask.
   */
  unresolvedParents(): ReadonlySet<string> {
    if (this.unresolvedCache !== undefined) return this.unresolvedCache;
    const missing = new Set<string>();
    this.records.forEach((r, o) => {
      if (typeof r.parentUuid === 'string' && (this.parentOrdinals[o] as number) < 0) missing.add(r.parentUuid);
    });
    this.unresolvedCache = missing;
    return missing;
  }

  /** The record a record's parentUuid names, when it is in this file. */
  parentOf(record: RecordSummary): RecordSummary | undefined {
    if (this.records[record.ordinal] !== record) {
      // Not a record of this index: looked up by uuid.
      return typeof record.parentUuid === 'string' ? this.byUuid.get(record.parentUuid) : undefined;
    }
    const o = this.parentOrdinals[record.ordinal] as number;
    return o < 0 ? undefined : this.records[o];
  }

  /** Records whose effective parent is `uuid`, in file order. */
  childrenOf(uuid: string): readonly RecordSummary[] {
    const table = (this.childrenCache ??= this.childTable());
    const parent = this.byUuid.get(uuid);
    if (parent === undefined) return table.ofMissing.get(uuid) ?? NO_RECORDS;
    const from = table.start[parent.ordinal] as number;
    const to = table.start[parent.ordinal + 1] as number;
    if (from === to) return NO_RECORDS;
    const children = new Array<RecordSummary>(to - from);
    for (let i = from; i < to; i++) children[i - from] = this.records[table.children[i] as number] as RecordSummary;
    return children;
  }

  /**
   * {@link childCount} of a record's uuid, read by its ordinal (no lookup by
   * uuid) when it is a record of this index that holds its uuid.
   */
  childCountOf(record: RecordSummary): number {
    if (record.uuid === undefined) return 0;
    if (this.records[record.ordinal] !== record || !this.isEffective(record)) return this.childCount(record.uuid);
    const table = (this.childrenCache ??= this.childTable());
    return (table.start[record.ordinal + 1] as number) - (table.start[record.ordinal] as number);
  }

  /** How many records {@link childrenOf} would list, without building the list. */
  childCount(uuid: string): number {
    const table = (this.childrenCache ??= this.childTable());
    const parent = this.byUuid.get(uuid);
    if (parent === undefined) return table.ofMissing.get(uuid)?.length ?? 0;
    return (table.start[parent.ordinal + 1] as number) - (table.start[parent.ordinal] as number);
  }

  /**
   * The assistant rows of the API response `record` belongs to: same
   * `message.id`, same side (sidechain or not) and agent, last bodies, in
   * file order. Claude Code writes one row per content block of a response,
   * so a tool call and its siblings can sit on different rows. Just the
   * record when it has no `message.id`. Built on first use: most sessions'
   * rules never ask, as tool results name their calling row.
   */
  responseRows(record: RecordSummary): readonly RecordSummary[] {
    if (record.messageId === undefined) return [record];
    if (this.responseCache === undefined) {
      // By message id alone: its string is the summaries' own, where a key
      // of side, agent and id was a new string for every response.
      const table = new ListTable<string, RecordSummary>();
      for (const r of this.effectiveRecords()) {
        if (r.type === 'assistant' && r.messageId !== undefined) table.add(r.messageId, r);
      }
      this.responseCache = table.trim();
    }
    const rows = this.responseCache
      .get(record.messageId)
      .filter((r) => r.isSidechain === record.isSidechain && (r.agentId ?? '') === (record.agentId ?? ''));
    return rows.length > 0 ? rows : [record];
  }

  /**
   * Children by parent ordinal in two flat arrays (a compressed adjacency
   * list) instead of a map of one array per record: a 700 MB session has
   * 200,000 records, and as many small arrays cost more to build and to
   * collect than the graph walks that read them.
   */
  private childTable(): ChildTable {
    const records = this.effectiveRecords();
    const n = this.records.length;
    const parentOrdinal = new Int32Array(records.length).fill(-1);
    const start = new Int32Array(n + 1);
    const ofMissing = new Map<string, RecordSummary[]>();
    for (let i = 0; i < records.length; i++) {
      const r = records[i] as RecordSummary;
      if (typeof r.parentUuid !== 'string') continue;
      const parent = this.parentOf(r);
      if (parent === undefined) {
        const list = ofMissing.get(r.parentUuid);
        if (list === undefined) ofMissing.set(r.parentUuid, [r]);
        else list.push(r);
        continue;
      }
      parentOrdinal[i] = parent.ordinal;
      start[parent.ordinal + 1] = (start[parent.ordinal + 1] as number) + 1;
    }
    for (let o = 0; o < n; o++) start[o + 1] = (start[o + 1] as number) + (start[o] as number);
    const next = start.slice(0, n);
    const children = new Int32Array(start[n] as number);
    for (let i = 0; i < records.length; i++) {
      const o = parentOrdinal[i] as number;
      if (o < 0) continue;
      const slot = next[o] as number;
      children[slot] = (records[i] as RecordSummary).ordinal;
      next[o] = slot + 1;
    }
    return { start, children, ofMissing };
  }

  /**
   * One record per uuid (the last body, as Claude Code keeps it) plus every
   * record without a uuid, in file order. Computed once; the record array
   * itself when the file has no duplicates.
   */
  effectiveRecords(): readonly RecordSummary[] {
    if (this.effectiveCache === undefined) {
      this.effectiveCache = this.duplicates.size === 0 ? this.records : this.records.filter((r) => this.isEffective(r));
    }
    return this.effectiveCache;
  }

  /** The record is one {@link effectiveRecords} lists: no uuid, or the last body of its uuid. */
  isEffective(record: RecordSummary): boolean {
    if (record.uuid === undefined) return true;
    // Without repeated uuids every record of this index is its uuid's only one.
    if (this.duplicates.size === 0 && this.records[record.ordinal] === record) return true;
    return this.byUuid.get(record.uuid) === record;
  }

  /**
   * True when `ancestor` lies on the parent chain of `descendant` (or is it).
   * O(1) after a single linear pass; parent cycles are cut where found.
   */
  isAncestor(ancestor: RecordSummary, descendant: RecordSummary): boolean {
    const { enter, exit } = this.ancestry();
    const a = ancestor.ordinal;
    const d = descendant.ordinal;
    const ea = enter[a];
    const ed = enter[d];
    if (ea === undefined || ed === undefined || ea < 0 || ed < 0) return false;
    return ea <= ed && (exit[d] as number) <= (exit[a] as number);
  }

  private ancestry(): { enter: Int32Array; exit: Int32Array } {
    if (this.ancestryCache !== undefined) return this.ancestryCache;
    const n = this.records.length;
    const enter = new Int32Array(n).fill(-1);
    const exit = new Int32Array(n).fill(-1);
    let clock = 0;
    const effective = this.effectiveRecords();
    // A depth-first walk over the child table by ordinal (what childrenOf
    // lists, without an array per record); each record is entered once.
    const { start, children } = (this.childrenCache ??= this.childTable());
    const stackRecord = new Int32Array(n);
    const stackNext = new Int32Array(n);
    // Roots: records whose parent is not in the file (or null/absent), plus
    // whatever a cycle leaves unvisited (picked up in the second loop).
    const visit = (root: number): void => {
      enter[root] = clock++;
      stackRecord[0] = root;
      stackNext[0] = start[root] as number;
      let depth = 1;
      while (depth > 0) {
        const top = depth - 1;
        const o = stackRecord[top] as number;
        const next = stackNext[top] as number;
        if (next < (start[o + 1] as number)) {
          stackNext[top] = next + 1;
          const child = children[next] as number;
          if (enter[child] !== -1) continue; // cycle or duplicate edge
          enter[child] = clock++;
          stackRecord[depth] = child;
          stackNext[depth] = start[child] as number;
          depth++;
        } else {
          exit[o] = clock++;
          depth--;
        }
      }
    };
    for (const r of effective) {
      if (typeof r.parentUuid !== 'string' || !this.byUuid.has(r.parentUuid)) visit(r.ordinal);
    }
    for (const r of effective) {
      if (enter[r.ordinal] === -1) visit(r.ordinal);
    }
    this.ancestryCache = { enter, exit };
    return this.ancestryCache;
  }

  /**
   * Compaction segment of each record: the number of main-chain compact
   * boundaries at or before it in file order. Relinks never cross segments.
   */
  segmentOf(record: RecordSummary): number {
    if (this.segmentCache === undefined) {
      const segments = new Int32Array(this.records.length);
      let segment = 0;
      for (const r of this.records) {
        if (!r.isSidechain && isCompactBoundary(r)) segment++;
        segments[r.ordinal] = segment;
      }
      this.segmentCache = segments;
    }
    return this.segmentCache[record.ordinal] ?? 0;
  }
}

/** The session id a report gives a file: the one its name carries, else the first its records name. */
export function sessionIdOf(index: SessionIndex): string | undefined {
  return index.file.layoutSessionId ?? index.records.find((r) => r.sessionId !== undefined)?.sessionId;
}
