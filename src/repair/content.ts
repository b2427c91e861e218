/**
 * The bytes the writer puts in a file, streamed: a plan's {@link Rewrite}
 * with its kept ranges read from the handle on the old inode (whose bytes
 * the writer has just verified), a range of a handle (the old bytes, put
 * back), or another file (a restore's backup). Nothing is held whole, so a
 * 1 GB session is written in 8 MB pieces; and every write is checked
 * against the hash the plan promised before the file it wrote is used.
 */
import { createHash } from 'node:crypto';
import { ConcurrentModificationError } from '../core/errors.js';
import { type FileOwner, type FsPort, type ReadHandle, removeQuietly } from './fs-port.js';
import type { Rewrite } from './rewrite.js';

const CHUNK = 8 * 1024 * 1024;

/** Bytes to write: their size, the sha256 they must have, and the bytes in order. */
export interface Content {
  readonly size: number;
  readonly sha256: string;
  /** The bytes in order, in pieces of at most 8 MB, each valid until the next is asked for; each call starts over. */
  chunks(): Iterable<Buffer>;
}

/**
 * Bytes `[start, end)` behind a handle, in one reused buffer (a chunk is
 * valid until the next is asked for); stops early where the inode is
 * shorter.
 */
export function* handleRange(handle: ReadHandle, start: number, end: number): Generator<Buffer> {
  const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(1, end - start)));
  for (let at = start; at < end; ) {
    const chunk = handle.read(at, Math.min(buffer.length, end - at), buffer);
    if (chunk.length === 0) return;
    yield chunk;
    at += chunk.length;
  }
}

/** The first `size` bytes behind a handle (the old bytes of a file, put back). */
export function handleContent(handle: ReadHandle, size: number, sha256: string): Content {
  return { size, sha256, chunks: () => handleRange(handle, 0, size) };
}

/**
 * A plan's new bytes: its kept ranges from `old` (the inode the plan was
 * made from), a restore's backup ranges from that file, new bytes as they are.
 */
export function rewriteContent(rewrite: Rewrite, sha256: string, old: ReadHandle, port: FsPort): Content {
  function* chunks(): Generator<Buffer> {
    for (const piece of rewrite.pieces) {
      if (piece.kind === 'new') {
        yield piece.bytes;
      } else if (piece.kind === 'kept') {
        yield* handleRange(old, piece.start, piece.end);
      } else {
        const other = port.openRead(piece.path);
        try {
          yield* handleRange(other, piece.start, piece.end);
        } finally {
          other.close();
        }
      }
    }
  }
  return { size: rewrite.size, sha256, chunks };
}

/**
 * Writes `content` to the new file `file` (mode, owner, fsync: see
 * {@link FsPort.writeNewFile}) and checks what it wrote against
 * `content.sha256` on the way; when the bytes are not those (a source
 * changed under the writer), the file is removed and
 * {@link ConcurrentModificationError} thrown.
 */
export function writeVerified(
  port: FsPort,
  file: string,
  content: Content,
  mode: number,
  shown: string,
  owner?: FileOwner | undefined,
): void {
  const hash = createHash('sha256');
  let size = 0;
  function* hashed(): Generator<Buffer> {
    for (const chunk of content.chunks()) {
      hash.update(chunk);
      size += chunk.length;
      yield chunk;
    }
  }
  port.writeNewFile(file, hashed(), { mode, owner });
  if (size !== content.size || hash.digest('hex') !== content.sha256) {
    removeQuietly(port, file); // the caller reports the mismatch
    throw new ConcurrentModificationError(
      `the bytes cclint was about to write for ${shown} are not the ones it planned (the file changed after the fix was planned); nothing was written; run cclint fix again`,
    );
  }
}
