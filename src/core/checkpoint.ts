/**
 * A session index's checkpoint as plain values: what `--cache` keeps to
 * read a session that only grew from where the last run ended instead of
 * from its start (stored-index.ts), and what a worker thread sends back of
 * the part of a big session it indexed (split-parse.ts).
 *
 * The summaries are JSON arrays, a few thousand to a piece: on a 724 MB
 * session (209,000 records) that is 44 MB, written in 0.3 s and read back
 * in 0.4 s, where V8's structured serialisation of the same objects took
 * twice as long to read. What the summaries share (envelopes, rare fields)
 * and the rest of the index are few values and go as they are, in a form
 * that keeps `undefined` (the caller serialises it with `v8.serialize`).
 * No I/O here: the caller writes the pieces as they come.
 */
import { type RecordSummary, summaryDecoder, summaryEncoder } from './records.js';
import type { IndexCheckpoint, InvalidLine, LineStats } from './session-index.js';

/** Bump when the layout of a stored checkpoint or of a summary's row changes. */
export const CHECKPOINT_FORMAT = 2;

const ROWS_PER_PIECE = 8192;

/** What a stored checkpoint holds besides its rows: few values, some `undefined` (the caller serialises it with `v8.serialize`). */
export interface CheckpointMeta {
  readonly format: number;
  readonly stats: LineStats;
  readonly invalidLines: readonly InvalidLine[];
  readonly lineOffsets: Float64Array;
  readonly lineLengths: Float64Array;
  /** The objects summaries share, numbered as their rows name them. */
  readonly shared: readonly object[];
  /** How many pieces of rows there are. */
  readonly pieces: number;
}

/**
 * Encodes `checkpoint`: `write` gets each piece of rows (UTF-8 JSON text of
 * an array of rows, in file order) as it is made, so that only one piece is
 * held at a time; the meta comes back. Bytes, not strings: an excerpt with a
 * character above U+00FF makes a whole piece a two-byte string.
 */
export function encodeCheckpoint(checkpoint: IndexCheckpoint, write: (piece: Buffer) => void): CheckpointMeta {
  const numbers = new Map<object, number>();
  const shared: object[] = [];
  const share = (value: object): number => {
    let n = numbers.get(value);
    if (n === undefined) {
      n = shared.length;
      numbers.set(value, n);
      shared.push(value);
    }
    return n;
  };
  const { records } = checkpoint;
  const encode = summaryEncoder(records, checkpoint.parentOrdinals ?? new Int32Array(0), share);
  let pieces = 0;
  for (let start = 0; start < records.length; start += ROWS_PER_PIECE) {
    const rows: unknown[] = [];
    const end = Math.min(records.length, start + ROWS_PER_PIECE);
    for (let i = start; i < end; i++) rows.push(encode(records[i] as RecordSummary));
    write(Buffer.from(JSON.stringify(rows)));
    pieces++;
  }
  return {
    format: CHECKPOINT_FORMAT,
    stats: checkpoint.stats,
    invalidLines: checkpoint.invalidLines,
    // A view would take its whole buffer along.
    lineOffsets: checkpoint.lineOffsets.slice(),
    lineLengths: checkpoint.lineLengths.slice(),
    shared,
    pieces,
  };
}

/** Whether `meta` is the meta of a checkpoint this version wrote. */
export function isCheckpointMeta(meta: unknown): meta is CheckpointMeta {
  if (meta === null || typeof meta !== 'object') return false;
  const m = meta as Partial<CheckpointMeta>;
  return (
    m.format === CHECKPOINT_FORMAT &&
    m.stats !== null &&
    typeof m.stats === 'object' &&
    typeof m.stats.lineCount === 'number' &&
    typeof m.stats.byteLength === 'number' &&
    Array.isArray(m.invalidLines) &&
    m.lineOffsets instanceof Float64Array &&
    m.lineLengths instanceof Float64Array &&
    m.lineOffsets.length === m.stats.lineCount + 1 &&
    m.lineLengths.length === m.stats.lineCount + 1 &&
    Array.isArray(m.shared) &&
    typeof m.pieces === 'number'
  );
}

/**
 * The checkpoint `meta` and its pieces of rows hold, the pieces taken one at
 * a time; undefined when they are not what {@link encodeCheckpoint} wrote.
 * An error reading a piece is thrown.
 *
 * With `after`, they were written by an index of the part of a file that
 * starts where `after` ends (see {@link checkpointAt}), and what comes back
 * is the checkpoint of both parts: the index a read of the whole would
 * build from it.
 */
export function decodeCheckpoint(meta: unknown, pieces: Iterable<Uint8Array>, after?: IndexCheckpoint): IndexCheckpoint | undefined {
  if (!isCheckpointMeta(meta)) return undefined;
  const records: RecordSummary[] = after === undefined ? [] : [...after.records];
  const lines = after?.stats.lineCount ?? 0;
  const decode = summaryDecoder(meta.shared, records, { lines, records: records.length });
  let count = 0;
  try {
    for (const piece of pieces) {
      count++;
      const text = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength).toString('utf8');
      for (const row of JSON.parse(text) as unknown[][]) records.push(decode(row));
    }
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof TypeError) return undefined;
    throw error;
  }
  if (count !== meta.pieces) return undefined;
  // (The build finds each record's parent again as it takes the records in.)
  if (after === undefined) {
    return { records, invalidLines: meta.invalidLines, stats: meta.stats, lineOffsets: meta.lineOffsets, lineLengths: meta.lineLengths, parentOrdinals: undefined };
  }
  const a = after.stats;
  const b = meta.stats;
  const joined = (first: Float64Array, second: Float64Array): Float64Array => {
    const both = new Float64Array(a.lineCount + b.lineCount + 1);
    both.set(first.subarray(0, a.lineCount + 1));
    both.set(second.subarray(1, b.lineCount + 1), a.lineCount + 1);
    return both;
  };
  return {
    records,
    invalidLines: [...after.invalidLines, ...meta.invalidLines.map((l) => ({ ...l, line: l.line + lines }))],
    stats: {
      byteLength: b.byteLength,
      lineCount: a.lineCount + b.lineCount,
      endsWithNewline: b.lineCount > 0 ? b.endsWithNewline : a.endsWithNewline,
      hasBom: a.hasBom,
      blankLines: a.blankLines + b.blankLines,
      crlfLines: a.crlfLines + b.crlfLines,
      binaryLines: a.binaryLines + b.binaryLines,
      lastSkipBoundaryLine: b.lastSkipBoundaryLine > 0 ? b.lastSkipBoundaryLine + lines : a.lastSkipBoundaryLine,
    },
    lineOffsets: joined(after.lineOffsets, meta.lineOffsets),
    lineLengths: joined(after.lineLengths, meta.lineLengths),
    parentOrdinals: undefined,
  };
}

/**
 * Where an index of the part of a file from byte `byteLength` on starts (a
 * line starts there): nothing read yet, lines numbered from 1. What
 * {@link SessionIndex.build} goes on from to index that part alone.
 */
export function checkpointAt(byteLength: number): IndexCheckpoint {
  return {
    records: [],
    invalidLines: [],
    stats: { byteLength, lineCount: 0, endsWithNewline: true, hasBom: false, blankLines: 0, crlfLines: 0, binaryLines: 0, lastSkipBoundaryLine: 0 },
    lineOffsets: new Float64Array(1),
    lineLengths: new Float64Array(1),
    parentOrdinals: undefined,
  };
}
