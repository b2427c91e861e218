/**
 * Whether a file's times can vouch for its bytes. A write moves a file's
 * change time; two looks at a file that find the same inode, size and
 * times saw the same bytes in between, unless a write landed within the
 * same tick of the file system's clock as the first look (git's "racily
 * clean" files). The cache trusts a settled file's times this way, and
 * `rename` its loaded index.
 */
import fs from 'node:fs';

/** A file modified this recently may change again without its times moving. */
export const RACY_MS = 2000;

/** The file's identity and times, or undefined when it cannot be looked at. */
export function statOf(file: string): fs.BigIntStats | undefined {
  try {
    return fs.statSync(file, { bigint: true });
  } catch {
    return undefined;
  }
}

/** Whether a file last changed longer than `racyMs` before it was looked at (see {@link RACY_MS}). */
export function settled(stat: fs.BigIntStats, racyMs: number): boolean {
  return (BigInt(Date.now()) + 1n) * 1_000_000n - stat.ctimeNs >= BigInt(racyMs) * 1_000_000n;
}

/** Whether `file` is still the file `before` describes, unchanged: same device, inode, size and times. */
export function sameStat(before: fs.BigIntStats, file: string): boolean {
  const now = statOf(file);
  return (
    now !== undefined &&
    now.ino === before.ino &&
    now.dev === before.dev &&
    now.size === before.size &&
    now.mtimeNs === before.mtimeNs &&
    now.ctimeNs === before.ctimeNs
  );
}
