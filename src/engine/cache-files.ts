/**
 * What the cache's two kinds of files share: the format's version, the
 * stamp of the build that wrote them, and an atomic write in parts. See cache.ts (entries of lint results per
 * session group) and stored-index.ts (a big session's index).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';

/** Bump when the layout of an entry changes. */
export const CACHE_FORMAT = 5;

/**
 * When this module's file was written: a new build of the same version (a
 * development checkout after `npm run build`) must not trust what an older
 * build stored.
 */
export function buildTime(): string {
  try {
    return String(fs.statSync(fileURLToPath(import.meta.url)).mtimeMs);
  } catch {
    return 'unknown';
  }
}

/**
 * `write-file-atomic` for data written in parts: `fill` writes them to a
 * temporary file beside `file` (mode 0600), which is then renamed over it.
 */
export function writeAtomically(file: string, fill: (write: (bytes: Buffer) => void) => void): void {
  const temporary = `${file}.${process.pid}.${threadId}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx', 0o600);
  try {
    try {
      fill((bytes) => {
        let done = 0;
        while (done < bytes.length) done += fs.writeSync(fd, bytes, done, bytes.length - done);
      });
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, file);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
