/**
 * What the cache's two kinds of files share: the format's version, the
 * stamp of the build that wrote them, their header line, and the pruning of
 * files no run will read again (both are written with core/atomic-write.ts). See cache.ts
 * (entries of lint results per session group) and stored-index.ts (a big
 * session's index).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { removeIfAbandoned } from '../core/atomic-write.js';
import { READ_FLAGS } from '../core/reader.js';
import { VERSION } from '../version.js';

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
 * The stamp of the build that wrote a cache file, whatever the rules it ran
 * with: the format, the version, the build and V8's version. A file of
 * another build is never read again.
 */
export function buildStamp(): string {
  return crypto.createHash('sha256').update(JSON.stringify([CACHE_FORMAT, VERSION, buildTime(), process.versions.v8])).digest('hex');
}

/** The JSON header line that follows `magic` at the start of a cache file, from its first bytes. */
export function headerOf(head: Buffer, magic: string): Record<string, unknown> | undefined {
  const end = head.indexOf(0x0a, magic.length);
  if (!head.subarray(0, magic.length).equals(Buffer.from(magic)) || end === -1) return undefined;
  try {
    const header = JSON.parse(head.toString('utf8', magic.length, end)) as unknown;
    return header !== null && typeof header === 'object' && !Array.isArray(header) ? (header as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Which files of the cache folder {@link pruneCacheFiles} looks at, and which it deletes. */
export interface PruneRule {
  /** The names of the files of one kind (temporary files are named after them: the name, a dot, a suffix). */
  readonly names: RegExp;
  /** Their magic line: a file without it, or without a readable header, is left for its reader to call corrupt. */
  readonly magic: string;
  /** Whether a file with this header will never be read again. */
  readonly unused: (header: Record<string, unknown>) => boolean;
}

/**
 * Deletes the cache files no run will read again, by the header in their
 * first bytes (see {@link PruneRule}), and temporary files of the same kind
 * left by a run killed while it wrote ({@link removeIfAbandoned}).
 * `kept` (just written) is not looked at. A file that cannot be looked at
 * or deleted is left: another run may be writing or pruning too.
 */
export function pruneCacheFiles(dir: string, rule: PruneRule, kept?: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const head = Buffer.alloc(4096);
  for (const name of names) {
    const file = path.join(dir, name);
    if (file === kept) continue;
    const dot = name.indexOf('.bin.');
    try {
      if (dot !== -1) {
        if (rule.names.test(name.slice(0, dot + 4))) removeIfAbandoned(file);
        continue;
      }
      if (!rule.names.test(name)) continue;
      // Only a regular file's bytes are read.
      const fd = fs.openSync(file, READ_FLAGS);
      let n = 0;
      try {
        if (fs.fstatSync(fd).isFile()) n = fs.readSync(fd, head, 0, head.length, 0);
      } finally {
        fs.closeSync(fd);
      }
      const header = headerOf(head.subarray(0, n), rule.magic);
      if (header !== undefined && rule.unused(header)) fs.rmSync(file, { force: true });
    } catch {
      // another run may be pruning or writing too
    }
  }
}
