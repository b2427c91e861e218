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
  /** JSON text of arrays of rows, in file order. */
  readonly pieces: readonly string[];
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
  const pieces: string[] = [];
  const { records } = checkpoint;
  for (let start = 0; start < records.length; start += ROWS_PER_PIECE) {
    const rows: unknown[] = [];
    const end = Math.min(records.length, start + ROWS_PER_PIECE);
    for (let i = start; i < end; i++) rows.push(summaryToJson(records[i] as RecordSummary, share));
    pieces.push(JSON.stringify(rows));
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
      for (const row of JSON.parse(piece as string) as unknown[][]) records.push(summaryFromJson(row, records.length, s.shared));
    }
  } catch {
    return undefined;
  }
  return { records, invalidLines: s.invalidLines, stats: s.stats, lineOffsets: s.lineOffsets, lineLengths: s.lineLengths };
}
