/**
 * Byte-exact line reader for JSONL transcripts.
 *
 * Transcripts can be larger than a JavaScript string can hold (a 700 MB
 * session is real), so the file is never decoded whole: it is read in chunks
 * and split on the byte 0x0A only. `\r` before the `\n` is reported, not
 * swallowed, and nothing else (U+2028, lone `\r`) counts as a line break,
 * which is also how Claude Code splits these files.
 *
 * Reading is synchronous on purpose: a linter reads one file at a time, and a
 * tight synchronous loop around `Buffer#indexOf` is the fastest way to stay
 * close to the cost of `JSON.parse` itself.
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import { constants as bufferConstants } from 'node:buffer';

export interface ReadStats {
  readonly byteLength: number;
  readonly lineCount: number;
  readonly endsWithNewline: boolean;
  readonly hasBom: boolean;
}

/** Where bytes come from: a file descriptor, or a buffer in tests. */
export interface ByteSource {
  /** The size when asked; a file source asks the file system only then. */
  readonly size: number;
  /** Reads up to `length` bytes at `position` into `target`; returns the count. */
  read(target: Buffer, targetOffset: number, length: number, position: number): number;
  close(): void;
}

/**
 * How cclint opens every file it reads. Without `O_NONBLOCK`, opening a
 * named pipe put where a file was expected waits for a writer, in a
 * system call no signal ends (Ctrl-C included). With it the open returns
 * at once, and a read of the pipe finds nothing, or fails. Reads of a
 * regular file are the same either way.
 */
export const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);

/**
 * The whole of a small file (a config, a baseline, a cache entry), opened
 * with {@link READ_FLAGS}. Anything but a regular file is refused with an
 * `EFTYPE` error: a device such as `/dev/zero` would be read for ever.
 */
export function readWholeFile(path: string): Buffer {
  const fd = fs.openSync(path, READ_FLAGS);
  try {
    if (!fs.fstatSync(fd).isFile()) throw Object.assign(new Error(`${path}: not a regular file`), { code: 'EFTYPE' });
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A file opened for reading. Its size is looked up only when asked for:
 * the line reader reads until the end and never needs it, and on a folder
 * of thousands of small sessions one `fstat` per file is a measurable part
 * of the run.
 */
export function fileSource(path: string): ByteSource {
  const fd = fs.openSync(path, READ_FLAGS);
  let size: number | undefined;
  return {
    get size() {
      size ??= fs.fstatSync(fd).size;
      return size;
    },
    read: (target, targetOffset, length, position) => fs.readSync(fd, target, targetOffset, length, position),
    close: () => fs.closeSync(fd),
  };
}

export function bufferSource(bytes: Buffer): ByteSource {
  return {
    size: bytes.length,
    read: (target, targetOffset, length, position) => {
      const end = Math.min(bytes.length, position + length);
      if (position >= end) return 0;
      return bytes.copy(target, targetOffset, position, end);
    },
    close: () => undefined,
  };
}

/**
 * Reads `length` bytes at `position` into `target` from `targetOffset`,
 * as many reads as it takes; returns the count, short only at the end of
 * the source.
 */
export function readFully(source: ByteSource, target: Buffer, targetOffset: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = source.read(target, targetOffset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

const CHUNK = 8 * 1024 * 1024;
const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Lines longer than this are not decoded. V8 caps strings at about 2^29
 * UTF-16 units; a JSON line that long would also take several GB to parse.
 */
export const MAX_DECODED_LINE_BYTES = Math.min(bufferConstants.MAX_STRING_LENGTH, 512 * 1024 * 1024);

/**
 * One read buffer shared by successive scans. A folder of thousands of small
 * sessions would otherwise allocate (and page-fault in, and collect) a fresh
 * buffer per file; a nested scan, which nothing does today, gets its own.
 */
let spareChunk: Buffer | undefined;

function takeChunk(): Buffer {
  const chunk = spareChunk ?? Buffer.allocUnsafeSlow(CHUNK);
  spareChunk = undefined;
  return chunk;
}

/**
 * One physical line as the reader sees it, valid only during the callback
 * that receives it: the reader reuses both this object and the buffer its
 * bytes sit in. Nothing is decoded unless asked for, so a caller that can
 * decode it its own way (see session-index.ts) never pays for UTF-8.
 */
export class LineView {
  /** 1-based physical line number. */
  line = 0;
  /** Byte offset of the first byte of the line. */
  offset = 0;
  /** Length in bytes, without the line ending. */
  byteLength = 0;
  /**
   * The buffer holding the line's bytes `[start, end)` (without the line
   * ending and without a leading BOM on line 1), or `undefined` when the line
   * is too long to decode into a JavaScript string.
   */
  bytes: Buffer | undefined = undefined;
  start = 0;
  end = 0;
  /** The line ended in `\r\n`. */
  crlf = false;
  /** The line ended in `\n` (false only for a last line without one). */
  terminated = false;

  /** The line decoded as UTF-8; `undefined` when it is too long to decode. */
  text(): string | undefined {
    return this.bytes === undefined ? undefined : this.bytes.toString('utf8', this.start, this.end);
  }
}

/**
 * Where a scan starts when it goes on from an earlier one: just after the
 * `\n` of line `lineCount`, at byte `byteLength`, with what that scan said
 * of the bytes before.
 */
export type ScanStart = Pick<ReadStats, 'byteLength' | 'lineCount' | 'hasBom'> & {
  /** What the earlier scan ended with (default: a complete line, as a scan that stopped at one). */
  readonly endsWithNewline?: boolean;
};

/**
 * Calls `onLine` for every physical line, in order, without decoding it: the
 * {@link LineView} and its buffer are reused for the next line. A final line
 * without `\n` is reported with `terminated: false`; an empty file yields no
 * lines. With `from`, the scan starts at `from.byteLength` and numbers lines
 * on from `from.lineCount`; the stats it returns are of the whole source.
 */
export function scanLineViews(source: ByteSource, onLine: (line: LineView) => void, from?: ScanStart): ReadStats {
  const chunk = takeChunk();
  const view = new LineView();
  // Bytes of a line that started in an earlier chunk.
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let carryTruncated = false;
  let position = from?.byteLength ?? 0;
  let lineNo = from?.lineCount ?? 0;
  let lineStart = position;
  let hasBom = from?.hasBom ?? false;
  let endsWithNewline = from?.endsWithNewline ?? position > 0;

  /** `bytes[from, to)` is the line without its `\n`; handed on in place, no copy. */
  const emit = (bytes: Buffer | undefined, from: number, to: number, byteLength: number, terminated: boolean): void => {
    lineNo++;
    let start = from;
    let crlf = false;
    let end = to;
    if (bytes !== undefined) {
      // A BOM is the file's first bytes: not the start of a line a scan from the middle begins with.
      if (lineStart === 0 && end - start >= 3 && bytes[start] === 0xef && bytes[start + 1] === 0xbb && bytes[start + 2] === 0xbf) {
        hasBom = true;
        start += 3;
      }
      if (terminated && end > start && bytes[end - 1] === CR) {
        crlf = true;
        end--;
      }
    }
    view.line = lineNo;
    view.offset = lineStart;
    view.byteLength = byteLength;
    view.bytes = bytes;
    view.start = start;
    view.end = end;
    view.crlf = crlf;
    view.terminated = terminated;
    onLine(view);
  };

  try {
    for (;;) {
      const read = source.read(chunk, 0, chunk.length, position);
      if (read === 0) break;
      let cursor = 0;
      while (cursor < read) {
        const nl = chunk.indexOf(NEWLINE, cursor);
        if (nl === -1 || nl >= read) {
          // The line goes on into the next chunk: keep a copy of its bytes.
          const piece = chunk.subarray(cursor, read);
          if (!carryTruncated && carryBytes + piece.length <= MAX_DECODED_LINE_BYTES) {
            carry.push(Buffer.from(piece));
          } else {
            carryTruncated = true;
            carry = [];
          }
          carryBytes += piece.length;
          cursor = read;
          break;
        }
        const pieceLength = nl - cursor;
        if (carryBytes === 0) {
          emit(chunk, cursor, nl, pieceLength, true);
        } else {
          const total = carryBytes + pieceLength;
          if (carryTruncated || total > MAX_DECODED_LINE_BYTES) {
            emit(undefined, 0, 0, total, true);
          } else {
            carry.push(chunk.subarray(cursor, nl));
            const whole = Buffer.concat(carry, total);
            // The pieces can be collected while the line is handled: on a
            // line of hundreds of MB that halves what the read holds.
            carry = [];
            emit(whole, 0, total, total, true);
          }
          carry = [];
          carryBytes = 0;
          carryTruncated = false;
        }
        lineStart = position + nl + 1;
        cursor = nl + 1;
      }
      position += read;
      endsWithNewline = chunk[read - 1] === NEWLINE;
    }
    if (carryBytes > 0) {
      const whole = carryTruncated ? undefined : Buffer.concat(carry, carryBytes);
      carry = [];
      emit(whole, 0, carryBytes, carryBytes, false);
    }
  } finally {
    spareChunk = chunk;
    source.close();
  }
  return { byteLength: position, lineCount: lineNo, endsWithNewline, hasBom };
}

/**
 * Latin-1 text is tested in pieces of this many bytes: V8 makes a string of
 * up to some tens of KB in its young generation, quickly, while a string of
 * megabytes goes to its large-object space and costs ten times as much to
 * make (measured: 56 MB decoded in 64 KB pieces in about 15 ms, in 1 MB
 * pieces in about 350 ms).
 */
const PIECE = 64 * 1024;

/**
 * Whether `test` holds for some stretch of the bytes, read as Latin-1 (one
 * character per byte) in pieces that overlap by `overlap` bytes, so that
 * anything of at most `overlap + 1` bytes is seen whole in some piece. Stops
 * at the first piece that passes; closes the source.
 */
export function someLatin1Piece(source: ByteSource, overlap: number, test: (latin1: string) => boolean): boolean {
  const chunk = takeChunk();
  const keep = Math.min(Math.max(0, overlap), PIECE);
  try {
    let kept = 0;
    let position = 0;
    for (;;) {
      const read = source.read(chunk, kept, chunk.length - kept, position);
      if (read === 0) return false;
      position += read;
      const end = kept + read;
      for (let from = 0; from < end; from += PIECE) {
        const to = Math.min(end, from + PIECE + keep);
        if (test(chunk.toString('latin1', from, to))) return true;
        if (to === end) break;
      }
      kept = Math.min(keep, end);
      chunk.copy(chunk, 0, end - kept, end);
    }
  } finally {
    spareChunk = chunk;
    source.close();
  }
}

/**
 * A source that hashes (SHA-256) the bytes read through it in order, from
 * byte `from` on: wrapped around the scan that builds an index, it gives
 * the digest of exactly the bytes the index was built from, without a
 * second read. Reads elsewhere (lines read back) pass through unhashed.
 * SHA-256, not SHA-1, for the cache's digests of transcripts too:
 * processors with SHA extensions (x86 since about 2017, ARMv8) run it
 * faster (0.53 s against 0.67 s for a 724 MB session on the bench machine),
 * and a session that just grew is hashed on every run. (The cache's other
 * thread, background-hash.ts, hashes the same way.)
 */
export class HashingSource implements ByteSource {
  private readonly hash: Hash = createHash('sha256');
  private hashed: number;

  constructor(
    private readonly inner: ByteSource,
    from = 0,
    /** The error {@link digest} throws when the source ends before its size. */
    private readonly short: (at: number) => Error = (at) => new RangeError(`the source ended at byte ${at}, before its size`),
  ) {
    this.hashed = from;
  }

  get size(): number {
    return this.inner.size;
  }

  /** Where the bytes read in order end. */
  get hashedTo(): number {
    return this.hashed;
  }

  read(target: Buffer, targetOffset: number, length: number, position: number): number {
    const n = this.inner.read(target, targetOffset, length, position);
    if (position === this.hashed && n > 0) {
      this.hash.update(target.subarray(targetOffset, targetOffset + n));
      this.hashed += n;
    }
    return n;
  }

  close(): void {
    this.inner.close();
  }

  /** The digest of the bytes read in order so far (from `from` to {@link hashedTo}); ends the hash. */
  digestOfRead(): string {
    return this.hash.digest('hex');
  }

  /** The digest of the bytes from `from` to the source's size: what the reads left is read now. Ends the hash. */
  digest(): string {
    const size = this.inner.size;
    const chunk = Buffer.allocUnsafe(Math.min(8 * 1024 * 1024, Math.max(1, size - this.hashed)));
    while (this.hashed < size) {
      const n = this.inner.read(chunk, 0, Math.min(chunk.length, size - this.hashed), this.hashed);
      if (n === 0) throw this.short(this.hashed);
      this.hash.update(chunk.subarray(0, n));
      this.hashed += n;
    }
    return this.hash.digest('hex');
  }
}
