/**
 * A file written whole or not at all: its bytes go, in parts, to a new
 * temporary file beside it, renamed over it once complete. A run killed
 * meanwhile leaves the old file as it was, and the temporary one (which
 * the writer's next run may clean up). Used for cclint's own files (the
 * cache) and the files a flag names (`--output-file`, `--baseline`); a
 * transcript goes through the fix pipeline instead (src/repair/).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { threadId } from 'node:worker_threads';

export interface AtomicWriteOptions {
  /** The temporary file's path (default: `<file>.<pid>.<thread>.<random>.tmp`); it must not exist. */
  readonly temporary?: string | undefined;
  /** The mode the temporary file is created with, less the umask (default 0600). */
  readonly mode?: number | undefined;
  /** A mode to give it whatever the umask (an existing file's, kept). */
  readonly keepMode?: number | undefined;
}

/**
 * Writes all of `part` to `fd`. write(2) may take fewer bytes than asked (a
 * disk filling up, a signal, a pipe): what it left is written again, and a
 * string is written as its bytes so that its rest is not lost either.
 */
export function writeAll(fd: number, part: Buffer | string): void {
  const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
  let done = 0;
  while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done);
}

/** Writes `file` atomically: `fill` writes its parts (see the module's doc). */
export function writeAtomically(file: string, fill: (write: (bytes: Buffer | string) => void) => void, options: AtomicWriteOptions = {}): void {
  const temporary = options.temporary ?? `${file}.${process.pid}.${threadId}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx', options.mode ?? 0o600);
  try {
    try {
      if (options.keepMode !== undefined) fs.fchmodSync(fd, options.keepMode);
      fill((part) => writeAll(fd, part));
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}

/** A temporary file this old was left by a run ended while it wrote (a kill, or Ctrl-C, which ends a read-only command at once). */
const ABANDONED_MS = 60 * 60 * 1000;

/**
 * Deletes `file` when it is a regular file left by a write that never
 * finished: older than an hour (a write in progress keeps touching it).
 * Never throws: another run may be writing or removing it too.
 */
export function removeIfAbandoned(file: string): void {
  try {
    const st = fs.lstatSync(file);
    if (st.isFile() && Date.now() - st.mtimeMs > ABANDONED_MS) fs.rmSync(file, { force: true });
  } catch {
    // gone already, or not ours to judge
  }
}
