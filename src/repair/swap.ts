/**
 * The append-safe atomic swap. Claude Code appends to a session with
 * open-append-close; an atomic rename gives the path a new inode, so a line
 * whose open came before the rename lands in the old inode and would be lost.
 * The swap keeps the old inode open, and after the rename reads whatever was
 * appended to it past the bytes the plan was made from, and carries it into
 * the new file in order:
 *
 * - appended before the rename: written into the temp file right after the
 *   new bytes;
 * - appended to the old inode after it: appended to the new file when nothing
 *   else has been, else the new file is rebuilt (new bytes, the old inode's
 *   lines, then the new inode's lines) and swapped in again, round after
 *   round, until the replaced inode stays quiet;
 * - when appended lines refer to a record the fix removed or renamed (they
 *   cannot follow the new bytes), the old bytes are put back instead, followed
 *   by every appended byte, in order.
 *
 * Nothing here overwrites a byte someone else wrote: every byte found past
 * what cclint itself wrote goes into the next version of the file.
 */
import { CclintError, ConcurrentModificationError } from '../core/errors.js';
import { type Content, writeVerified } from './content.js';
import { errorText, removeQuietly } from './fs-port.js';
import type { FileOwner, FsPort, ReadHandle } from './fs-port.js';

/** How long a replaced inode must stay the same size before it counts as quiet. */
export const QUIET_MS = 100;
const POLL_MS = 10;
/** A replaced inode that keeps growing for this long is read as it is. */
const MAX_SETTLE_MS = 2_000;
const MAX_ROUNDS = 20;

export interface SwapRequest {
  readonly fs: FsPort;
  readonly file: string;
  readonly shown: string;
  /** A handle on the inode the plan was made from. */
  readonly old: ReadHandle;
  /** How many bytes of `old` the plan was made from. */
  readonly planned: number;
  /** The new bytes. */
  readonly content: Content;
  /** The bytes the plan was made from, put back when appended lines cannot follow `content`. */
  readonly fallback: Content;
  readonly mode: number;
  /** The owner and group of the file replaced, given to every temp file before it is renamed in. */
  readonly owner: FileOwner;
  /** The temp file of each round (beside `file`, never ending in `.jsonl`). */
  readonly tempFor: (round: number) => string;
  /** Whether appended bytes may follow `content`. */
  readonly fits: (appended: Buffer) => boolean;
}

export interface SwapResult {
  /** The fallback was written (old bytes plus every appended byte) instead of the new bytes. */
  readonly reverted: boolean;
  /** Bytes carried from appenders, in order. */
  readonly carried: number;
  /** Renames done (1 when nothing raced). */
  readonly rounds: number;
}

/** Waits until the handle's size stops changing (or gives up after a while). */
function settle(port: FsPort, handle: ReadHandle): void {
  let size = handle.size();
  let quiet = 0;
  for (let waited = 0; quiet < QUIET_MS && waited < MAX_SETTLE_MS; waited += POLL_MS) {
    port.sleep(POLL_MS);
    const now = handle.size();
    quiet = now === size ? quiet + POLL_MS : 0;
    size = now;
  }
}

function readFrom(handle: ReadHandle, position: number): Buffer {
  return handle.read(position, Math.max(0, handle.size() - position));
}

/**
 * Replaces `file` with `content` plus everything appended meanwhile. Throws
 * {@link ConcurrentModificationError} with nothing written when lines
 * appended before the rename cannot follow the new bytes.
 */
export function swapCarrying(request: SwapRequest): SwapResult {
  const { fs: port, file, shown } = request;
  let base = request.content;
  let reverted = false;
  let renamed = false;
  const carried: Buffer[] = [];
  const carriedBytes = (): number => carried.reduce((n, b) => n + b.length, 0);
  const notWritten = (): ConcurrentModificationError =>
    new ConcurrentModificationError(
      `${shown} got new lines after the fix was planned that refer to records the fix changes; nothing was written; run cclint fix again`,
    );

  // Appended bytes are read as they land, so a line may be seen half
  // written: the end of what was read after its last newline is judged
  // again with the bytes that follow it, so that a uuid cut in two by a
  // read is still seen. (An unfinished line is judged with the next file's
  // bytes after a rebuild: that can only put the old bytes back needlessly.)
  let unfinished = Buffer.alloc(0);
  const followingFits = (appended: Buffer): boolean => {
    const seen = unfinished.length === 0 ? appended : Buffer.concat([unfinished, appended]);
    unfinished = Buffer.from(seen.subarray(seen.lastIndexOf(0x0a) + 1));
    return request.fits(seen);
  };

  /** From now on the old bytes are written instead of the new ones, every appended byte after them. */
  const revert = (): void => {
    reverted = true;
    base = request.fallback;
  };

  // The inode being replaced, and how much of it is in base + carried.
  let replaced = request.old;
  let accounted = request.planned;
  let written = 0;
  let round = 0;

  /**
   * Writes base + carried to a temp file, tops it up with what was appended
   * to the replaced inode meanwhile (so the window in which a line can land
   * there unseen is a read and a rename long), and renames it in.
   */
  const swapIn = (): void => {
    round++;
    const temp = request.tempFor(round);
    try {
      // The new bytes, checked against their hash, then what was carried so far (no copy of the whole file);
      // the temp file gets the mode, owner and group of the file it replaces.
      writeVerified(port, temp, base, request.mode, shown, request.owner);
      if (carried.length > 0) port.appendFile(temp, Buffer.concat(carried), { mode: request.mode });
      for (let k = 0; k < 100; k++) {
        const more = readFrom(replaced, accounted);
        if (more.length === 0) break;
        if (!reverted && !followingFits(more)) {
          if (!renamed) throw notWritten();
          // Put the old bytes back instead, with every new line.
          revert();
          carried.push(more);
          accounted += more.length;
          removeQuietly(port, temp);
          round--;
          swapIn();
          return;
        }
        port.appendFile(temp, more, { mode: request.mode });
        carried.push(more);
        accounted += more.length;
      }
      port.rename(temp, file);
      renamed = true;
      written = base.size + carriedBytes();
    } catch (error) {
      removeQuietly(port, temp);
      throw error;
    }
  };

  const early = readFrom(replaced, accounted);
  if (early.length > 0 && !request.fits(early)) throw notWritten();
  try {
    swapIn();
  } catch (error) {
    if (error instanceof ConcurrentModificationError) throw error;
    throw new CclintError(`could not write ${shown}: ${errorText(error)}; the file is unchanged`);
  }
  const handles: ReadHandle[] = [];
  try {
    for (;;) {
      // A line whose open() came before the rename may still land in the replaced inode.
      settle(port, replaced);
      const extra = readFrom(replaced, accounted);
      if (extra.length === 0) break;
      if (round >= MAX_ROUNDS) {
        throw new CclintError(
          `${shown} kept getting lines in its replaced file while cclint wrote it (${round} rounds); the session looks live: close it and run again`,
        );
      }
      if (!reverted && !followingFits(extra)) revert();
      const current = port.openRead(file);
      handles.push(current);
      const rest = readFrom(current, written);
      if (rest.length === 0 && !reverted) {
        port.appendFile(file, extra, { mode: request.mode });
        if (current.read(written, extra.length).equals(extra)) {
          carried.push(extra);
          accounted += extra.length;
          written += extra.length;
          continue; // the replaced inode may get yet another late line: look again
        }
        // Someone appended between the look and the append: rebuild, in order
        // (the replaced inode's lines came first: one appender writes in order).
        const all = readFrom(current, written);
        const at = all.indexOf(extra);
        const theirs = at === -1 ? all : Buffer.concat([all.subarray(0, at), all.subarray(at + extra.length)]);
        // Their lines are judged like any other: one under a uuid the fix
        // changed cannot follow the new bytes, so the old ones go back.
        if (!followingFits(theirs)) revert();
        carried.push(extra, theirs);
        replaced = current;
        accounted = written + all.length;
      } else {
        carried.push(extra);
        replaced = current;
        accounted = written; // what the current inode got since is read while the rebuild is written
      }
      swapIn();
    }
  } finally {
    for (const h of handles) {
      try {
        h.close();
      } catch {
        // already closed
      }
    }
  }
  return { reverted, carried: carriedBytes(), rounds: round };
}
