/**
 * A session index's checkpoint as plain values, for a cache that keeps it
 * between runs: what `--cache` needs to read a session that only grew from
 * where the last run ended instead of from its start.
 *
 * The summaries are JSON arrays, a few thousand to a string: on a 724 MB
 * session (209,000 records) that is 53 MB, written in 0.3 s and read back
 * in 0.4 s, where V8's structured serialisation of the same objects took
 * twice as long to read. What the summaries share (envelopes, rare fields)
 * and the rest of the index are few values and go as they are, in a form
 * that keeps `undefined` (the caller serialises it with `v8.serialize`).
 * No I/O here.
 */
import { type RecordSummary, summaryFromJson, summaryToJson } from './records.js';
import type { IndexCheckpoint, InvalidLine, LineStats } from './session-index.js';

/** Bump when the layout of a stored checkpoint or of a summary's row changes. */
export const CHECKPOINT_FORMAT = 1;

const ROWS_PER_PIECE = 8192;

export interface StoredCheckpoint {
  readonly format: number;
  readonly stats: LineStats;
  readonly invalidLines: readonly InvalidLine[];
  readonly lineOffsets: Float64Array;
  readonly lineLengths: Float64Array;
  /** The objects summaries share, numbered as their rows name them. */
  readonly shared: readonly object[];
  /**
   * UTF-8 JSON text of arrays of rows, in file order. Bytes, not strings:
   * an excerpt with a character above U+00FF makes its whole piece a
   * two-byte string, which serialises at twice its size.
   */
  readonly pieces: readonly Uint8Array[];
}

export function storedCheckpoint(checkpoint: IndexCheckpoint): StoredCheckpoint {
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
  const pieces: Uint8Array[] = [];
  const { records } = checkpoint;
  for (let start = 0; start < records.length; start += ROWS_PER_PIECE) {
    const rows: unknown[] = [];
    const end = Math.min(records.length, start + ROWS_PER_PIECE);
    for (let i = start; i < end; i++) rows.push(summaryToJson(records[i] as RecordSummary, share));
    pieces.push(Buffer.from(JSON.stringify(rows)));
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

/** The checkpoint `stored` holds; undefined when it is not one this version wrote. */
export function checkpointOf(stored: unknown): IndexCheckpoint | undefined {
  if (stored === null || typeof stored !== 'object') return undefined;
  const s = stored as Partial<StoredCheckpoint>;
  if (
    s.format !== CHECKPOINT_FORMAT ||
    s.stats === undefined ||
    !Array.isArray(s.invalidLines) ||
    !(s.lineOffsets instanceof Float64Array) ||
    !(s.lineLengths instanceof Float64Array) ||
    s.lineOffsets.length !== s.stats.lineCount + 1 ||
    s.lineLengths.length !== s.stats.lineCount + 1 ||
    !Array.isArray(s.shared) ||
    !Array.isArray(s.pieces)
  ) {
    return undefined;
  }
  const records: RecordSummary[] = [];
  try {
    for (const piece of s.pieces) {
      const text = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength).toString('utf8');
      for (const row of JSON.parse(text) as unknown[][]) records.push(summaryFromJson(row, records.length, s.shared));
    }
  } catch {
    return undefined;
  }
  return { records, invalidLines: s.invalidLines, stats: s.stats, lineOffsets: s.lineOffsets, lineLengths: s.lineLengths };
}
