/**
 * A planned file as pieces: byte ranges of the file it was planned from,
 * kept as they are, and the new bytes of the lines a fix rewrites (a piece
 * table). The planner never copies a session to change a few lines of it:
 * a 1 GB session with three fixes is three short buffers and four ranges,
 * read through {@link Rewrite.source} like the file itself. The writer
 * streams the same pieces into the new file, taking the kept ranges from
 * the handle whose bytes it has just verified (write.ts).
 */
import { ConcurrentModificationError } from '../core/errors.js';
import { type ByteSource, HashingSource, readFully } from '../core/reader.js';
import { type LineTable, type SessionFile, SessionIndex } from '../core/session-index.js';
import type { RecordEdit } from '../core/types.js';

export type Piece =
  /** Bytes `[start, end)` of the file the plan was made from. */
  | { readonly kind: 'kept'; readonly start: number; readonly end: number }
  /** Bytes no earlier version had (a rewritten or inserted line). */
  | { readonly kind: 'new'; readonly bytes: Buffer }
  /** Bytes `[start, end)` of another file (the backup a restore puts back). */
  | { readonly kind: 'file'; readonly path: string; readonly start: number; readonly end: number };

/** Replace bytes `[from, to)` of a rewrite with `bytes`. */
export interface Splice {
  readonly from: number;
  readonly to: number;
  readonly bytes: Buffer;
}

/** A change against the original: bytes `[oldFrom, oldTo)` became `bytes`. */
export interface Change {
  readonly oldFrom: number;
  readonly oldTo: number;
  readonly bytes: Buffer;
}

function pieceLength(piece: Piece): number {
  return piece.kind === 'new' ? piece.bytes.length : piece.end - piece.start;
}

/** A piece cut to `[from, to)` of its own bytes. */
function slicePiece(piece: Piece, from: number, to: number): Piece {
  if (piece.kind === 'new') return { kind: 'new', bytes: piece.bytes.subarray(from, to) };
  return { ...piece, start: piece.start + from, end: piece.start + to };
}

/** The file ended before bytes the plan was made from: someone rewrote it meanwhile. */
function shrank(at: number): ConcurrentModificationError {
  return new ConcurrentModificationError(`the file became shorter while cclint read it (at byte ${at}); nothing was written; run cclint fix again`);
}

export class Rewrite {
  /** Where each piece starts in the new file; one more entry for the end. */
  private readonly starts: Float64Array;

  private constructor(
    readonly pieces: readonly Piece[],
    readonly size: number,
  ) {
    this.starts = new Float64Array(pieces.length + 1);
    let at = 0;
    pieces.forEach((piece, i) => {
      this.starts[i] = at;
      at += pieceLength(piece);
    });
    this.starts[pieces.length] = at;
  }

  /** The pieces, with empty ones dropped and neighbours that continue each other merged. */
  static of(pieces: readonly Piece[]): Rewrite {
    const merged: Piece[] = [];
    let size = 0;
    // New bytes that follow each other are joined once per run (joining pairwise would copy a long run again and again).
    let run: Buffer[] = [];
    const endRun = (): void => {
      if (run.length > 0) merged.push({ kind: 'new', bytes: run.length === 1 ? (run[0] as Buffer) : Buffer.concat(run) });
      run = [];
    };
    for (const piece of pieces) {
      const length = pieceLength(piece);
      if (length === 0) continue;
      size += length;
      if (piece.kind === 'new') {
        run.push(piece.bytes);
        continue;
      }
      endRun();
      const last = merged[merged.length - 1];
      if (last?.kind === 'kept' && piece.kind === 'kept' && last.end === piece.start) {
        merged[merged.length - 1] = { kind: 'kept', start: last.start, end: piece.end };
      } else if (last?.kind === 'file' && piece.kind === 'file' && last.path === piece.path && last.end === piece.start) {
        merged[merged.length - 1] = { ...last, end: piece.end };
      } else {
        merged.push(piece);
      }
    }
    endRun();
    return new Rewrite(merged, size);
  }

  /** The original's first `size` bytes, unchanged. */
  static identity(size: number): Rewrite {
    return Rewrite.of([{ kind: 'kept', start: 0, end: size }]);
  }

  /** The piece holding byte `position` (binary search over the starts). */
  private pieceAt(position: number): number {
    let lo = 0;
    let hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.starts[mid] as number) <= position) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Reads up to `length` bytes of the new file at `position` into `target`,
   * kept ranges from `original`; returns the count (0 at the end).
   */
  read(original: ByteSource, target: Buffer, targetOffset: number, length: number, position: number): number {
    let done = 0;
    let at = position;
    if (at >= this.size || length <= 0) return 0;
    for (let i = this.pieceAt(at); i < this.pieces.length && done < length; i++) {
      const piece = this.pieces[i] as Piece;
      const pieceStart = this.starts[i] as number;
      const from = at - pieceStart;
      const want = Math.min(length - done, pieceLength(piece) - from);
      if (piece.kind === 'new') {
        piece.bytes.copy(target, targetOffset + done, from, from + want);
      } else if (piece.kind === 'kept') {
        const got = readFully(original, target, targetOffset + done, want, piece.start + from);
        if (got < want) throw shrank(piece.start + from + got);
      } else {
        throw new Error('a rewrite that copies another file is read by the writer only');
      }
      done += want;
      at += want;
    }
    return done;
  }

  /** The new file as a byte source; closing it leaves `original` open. */
  source(original: ByteSource): ByteSource {
    return {
      size: this.size,
      read: (target, targetOffset, length, position) => this.read(original, target, targetOffset, length, position),
      close: () => undefined,
    };
  }

  /**
   * This rewrite with `splices` applied (positions in this rewrite's bytes,
   * sorted, not overlapping). Pieces are shared, never copied.
   */
  splice(splices: readonly Splice[]): Rewrite {
    const out: Piece[] = [];
    let i = 0; // next piece not yet (wholly) emitted
    let offsetInPiece = 0;
    let at = 0; // position in this rewrite of pieces[i] + offsetInPiece
    /** Moves to `until`, keeping the bytes passed over when `keep`. */
    const advance = (until: number, keep: boolean): void => {
      while (at < until && i < this.pieces.length) {
        const piece = this.pieces[i] as Piece;
        const rest = pieceLength(piece) - offsetInPiece;
        const take = Math.min(rest, until - at);
        if (keep) out.push(offsetInPiece === 0 && take === rest ? piece : slicePiece(piece, offsetInPiece, offsetInPiece + take));
        at += take;
        if (take === rest) {
          i++;
          offsetInPiece = 0;
        } else {
          offsetInPiece += take;
        }
      }
    };
    let last = 0;
    for (const s of splices) {
      if (s.from < last || s.to < s.from || s.to > this.size) throw new RangeError('splices must be sorted, apart and inside the file');
      advance(s.from, true);
      if (s.bytes.length > 0) out.push({ kind: 'new', bytes: s.bytes });
      advance(s.to, false);
      last = s.to;
    }
    advance(this.size, true);
    return Rewrite.of(out);
  }

  /**
   * What changed against the original (of `originalSize` bytes): each run
   * of new bytes and removed ranges between kept ranges, in order. A
   * rewrite that copies another file has no such changes.
   */
  changes(originalSize: number): Change[] {
    const changes: Change[] = [];
    let expected = 0; // where the original continues after the last kept range
    let added: Buffer[] = [];
    const flush = (to: number): void => {
      if (added.length > 0 || to > expected) changes.push({ oldFrom: expected, oldTo: to, bytes: Buffer.concat(added) });
      added = [];
    };
    for (const piece of this.pieces) {
      if (piece.kind === 'kept') {
        flush(piece.start);
        expected = piece.end;
      } else if (piece.kind === 'new') {
        added.push(piece.bytes);
      } else {
        throw new Error('a rewrite that copies another file has no changes against the original');
      }
    }
    flush(originalSize);
    return changes;
  }
}

/**
 * Applies record edits (1-based physical lines of the rewrite `lines`
 * describes) and returns the new rewrite, or undefined when an edit's
 * `before` is not the line's text (a stale edit): nothing is ever applied
 * to a line that changed.
 *
 * The bytes are those a whole-file rewrite would give: a deleted line goes
 * with its line end; a replaced line's records are joined with its own line
 * end, and it always gets one (Claude Code appends after it); inserted
 * records follow their line, each with `\n`, after a `\n` when that line
 * had none. Several replaces of one line: the last wins; a delete wins over
 * a replace. Edits of lines the text does not have change nothing.
 */
export function applyLineEdits(
  rewrite: Rewrite,
  original: ByteSource,
  lines: LineTable,
  edits: readonly RecordEdit[],
): Rewrite | undefined {
  const replaced = new Map<number, readonly string[]>();
  const deleted = new Set<number>();
  const inserted = new Map<number, string[]>();
  const raw = new Map<number, Buffer>();
  const rawLine = (line: number): Buffer => {
    let bytes = raw.get(line);
    if (bytes === undefined) {
      const start = lines.offset(line);
      const next = start + lines.length(line) + (lines.terminated(line) ? 1 : 0);
      bytes = Buffer.alloc(next - start);
      rewrite.read(original, bytes, 0, bytes.length, start);
      raw.set(line, bytes);
    }
    return bytes;
  };
  /** Where the line's content ends within its raw bytes (before `\r\n` or `\n`). */
  const contentEnd = (bytes: Buffer): number => {
    if (bytes.length === 0 || bytes[bytes.length - 1] !== 0x0a) return bytes.length;
    const nl = bytes.length - 1;
    return nl > 0 && bytes[nl - 1] === 0x0d ? nl - 1 : nl;
  };
  for (const edit of edits) {
    const exists = edit.line >= 1 && edit.line <= lines.lineCount;
    if (edit.kind !== 'insertAfter') {
      if (!exists) return undefined;
      const bytes = rawLine(edit.line);
      const from = edit.line === 1 && lines.hasBom ? 3 : 0;
      if (bytes.toString('utf8', from, contentEnd(bytes)) !== edit.before) return undefined;
    }
    if (!exists) continue;
    if (edit.kind === 'replace') replaced.set(edit.line, edit.after);
    else if (edit.kind === 'delete') deleted.add(edit.line);
    else {
      const list = inserted.get(edit.line) ?? [];
      list.push(...edit.after);
      inserted.set(edit.line, list);
    }
  }
  const touched = [...new Set([...replaced.keys(), ...deleted, ...inserted.keys()])].sort((a, b) => a - b);
  const splices: Splice[] = [];
  for (const line of touched) {
    const start = lines.offset(line);
    const bytes = rawLine(line);
    const next = start + bytes.length;
    const eol = bytes.subarray(contentEnd(bytes));
    const unterminated = eol.length === 0;
    const parts: Buffer[] = [];
    let from = start;
    if (deleted.has(line)) {
      // nothing of the line
    } else if (replaced.has(line)) {
      const after = replaced.get(line) as readonly string[];
      parts.push(Buffer.from(after.join(unterminated ? '\n' : eol.toString('latin1'))));
      parts.push(unterminated ? Buffer.from('\n') : eol);
    } else {
      from = next; // the line stays as it is; records go after it
    }
    for (const text of inserted.get(line) ?? []) {
      if (unterminated && !deleted.has(line)) parts.push(Buffer.from('\n'));
      parts.push(Buffer.from(`${text}\n`));
    }
    splices.push({ from, to: next, bytes: Buffer.concat(parts) });
  }
  return rewrite.splice(splices);
}

/**
 * A {@link HashingSource} whose digest, when what the scan read in order is
 * not the whole source, says the file became shorter in the terms of a fix.
 */
export function hashingSource(inner: ByteSource): HashingSource {
  return new HashingSource(inner, 0, shrank);
}

/**
 * The index of a rewrite's text and that text's sha256, from one read: the
 * scan that builds the index reads through a {@link HashingSource}; the
 * index's later reads of lines go to a plain source.
 */
export function indexRewrite(file: SessionFile, rewrite: Rewrite, original: ByteSource): { index: SessionIndex; sha256: string } {
  const hashing = hashingSource(rewrite.source(original));
  let first = true;
  const index = SessionIndex.build(file, () => {
    if (!first) return rewrite.source(original);
    first = false;
    return hashing;
  });
  return { index, sha256: hashing.digest() };
}
