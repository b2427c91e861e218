/**
 * A big session's index kept between runs (`--cache`): written in parts,
 * read back through one descriptor, one piece of rows at a time, checked
 * against the session's first bytes (hashed on another thread meanwhile),
 * and pruned when its session is gone. See cache.ts, whose indexer uses it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { CHECKPOINT_FORMAT, type CheckpointMeta, decodeCheckpoint, encodeCheckpoint, isCheckpointMeta } from '../core/checkpoint.js';
import { type ByteSource, fileSource, readFully } from '../core/reader.js';
import type { IndexCheckpoint } from '../core/session-index.js';
import { type BackgroundHash, hashInBackground } from './background-hash.js';
import { writeAtomically } from '../core/atomic-write.js';
import { buildStamp, headerOf, pruneCacheFiles } from './cache-files.js';
import type { CacheConfig } from './cache.js';

/** What a stored index says of the file it was built from, beside the checkpoint's meta. */
interface StoredIndexAbout {
  readonly path: string;
  readonly dev: string;
  readonly ino: string;
  /** The SHA-256 of the file's first `meta.stats.byteLength` bytes. */
  readonly digest: string;
  readonly meta: CheckpointMeta;
}

const INDEX_MAGIC = 'cclint-index\n';

/** The stamp of stored indexes: they depend on the version and the build, not on the rules or the command. */
function indexStamp(): string {
  return crypto.createHash('sha256').update(JSON.stringify([buildStamp(), CHECKPOINT_FORMAT])).digest('hex');
}

export function indexPath(config: CacheConfig, file: string): string {
  return path.join(config.dir, `index-${crypto.createHash('sha256').update(file).digest('hex').slice(0, 40)}.bin`);
}

/** A stored index is written again once its file has grown past it by this share (reading that much costs about what writing it again does). */
export const STORE_AGAIN_SHARE = 1 / 16;

/**
 * Writes a session's index to `file`, atomically (a temporary file renamed
 * over it), mode 0600: the magic line, a header line with the stamp, then
 * length-prefixed parts (each piece of rows as it is encoded, so that a
 * 1 GB session's index is never held twice, then what {@link StoredIndexAbout}
 * says), then the SHA-256 of the parts.
 */
export function writeStoredIndex(config: CacheConfig, file: string, about: Omit<StoredIndexAbout, 'meta'>, checkpoint: IndexCheckpoint): string | undefined {
  try {
    fs.mkdirSync(config.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(config.dir, 0o700);
    writeAtomically(file, (write) => {
      write(Buffer.from(`${INDEX_MAGIC}${JSON.stringify({ stamp: indexStamp(), path: about.path })}\n`));
      const hash = crypto.createHash('sha256');
      const length = Buffer.alloc(4);
      const part = (bytes: Buffer): void => {
        length.writeUInt32LE(bytes.length);
        hash.update(length).update(bytes);
        write(length);
        write(bytes);
      };
      const meta = encodeCheckpoint(checkpoint, part);
      part(v8.serialize({ ...about, meta } satisfies StoredIndexAbout));
      write(Buffer.from(hash.digest('hex')));
    });
    pruneStoredIndexes(config.dir, file);
    return undefined;
  } catch (error) {
    return `cache file ${file} cannot be written (${error instanceof Error ? error.message : String(error)}); going on without it`;
  }
}

/**
 * Deletes the stored indexes no run will read again: of a session that no
 * longer exists, or written by another version (a stored index is tens of
 * MB), and temporary files left by a run killed while it wrote one. Done
 * when an index is stored, which is when the cache grows. Each file's
 * header names its session, so only the first bytes of each are read.
 */
function pruneStoredIndexes(dir: string, kept: string): void {
  const stamp = indexStamp();
  pruneCacheFiles(
    dir,
    {
      names: /^index-[0-9a-f]{40}\.bin$/,
      magic: INDEX_MAGIC,
      unused: (header) => header.stamp !== stamp || typeof header.path !== 'string' || !fs.existsSync(header.path),
    },
    kept,
  );
}

type LoadedIndex =
  | { readonly about: StoredIndexAbout; readonly pieces: () => Generator<Buffer>; readonly close: () => void }
  | { readonly miss: true; readonly warning?: string };

/**
 * What {@link writeStoredIndex} wrote to `file`, checked. The file is read
 * twice, in parts, through one descriptor (a run that stores the index
 * meanwhile renames a new file over the path, and the pieces read are
 * those the checksum covered): once for its checksum, once for its pieces
 * of rows, which come one at a time, so that a 1 GB session's stored index
 * (over 100 MB) is never held whole beside the summaries made of it. The
 * caller closes what it was given.
 */
function readStoredIndex(file: string): LoadedIndex {
  let source: ByteSource;
  try {
    source = fileSource(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { miss: true };
    return { miss: true, warning: `cache file ${file} cannot be read (${(error as Error).message}); ignored` };
  }
  const corrupt = (why: string): LoadedIndex => ({ miss: true, warning: `cache file ${file} is corrupt (${why}); ignored and written again` });
  let opened: LoadedIndex | undefined;
  try {
    const size = source.size;
    const head = Buffer.alloc(Math.min(size, 4096));
    readFully(source, head, 0, head.length, 0);
    if (!head.subarray(0, INDEX_MAGIC.length).equals(Buffer.from(INDEX_MAGIC))) return corrupt('not a cclint cache file');
    const header = headerOf(head, INDEX_MAGIC);
    if (header === undefined) return corrupt('unreadable header');
    if (header.stamp !== indexStamp()) return { miss: true }; // another version: not an error
    const headerEnd = head.indexOf(0x0a, INDEX_MAGIC.length);
    const DIGEST = 64;
    const start = headerEnd + 1;
    const end = size - DIGEST;
    if (end < start) return corrupt('truncated');
    /** Each part's offset and length, from their length prefixes. */
    const parts: Array<[number, number]> = [];
    const length = Buffer.alloc(4);
    for (let at = start; at < end; ) {
      if (at + 4 > end || readFully(source, length, 0, 4, at) !== 4) return corrupt('truncated');
      const next = at + 4 + length.readUInt32LE(0);
      if (next > end) return corrupt('truncated');
      parts.push([at + 4, next - at - 4]);
      at = next;
    }
    const digest = Buffer.alloc(DIGEST);
    readFully(source, digest, 0, DIGEST, end);
    const hash = crypto.createHash('sha256');
    const chunk = Buffer.allocUnsafe(1024 * 1024);
    for (let at = start; at < end; ) {
      const n = source.read(chunk, 0, Math.min(chunk.length, end - at), at);
      if (n === 0) return corrupt('truncated');
      hash.update(chunk.subarray(0, n));
      at += n;
    }
    if (hash.digest('hex') !== digest.toString('latin1')) return corrupt('checksum mismatch');
    const readPart = ([offset, bytes]: [number, number]): Buffer => {
      const part = Buffer.allocUnsafe(bytes);
      if (readFully(source, part, 0, bytes, offset) !== bytes) throw new Error('shorter than its parts say');
      return part;
    };
    const last = parts.pop();
    let about: unknown;
    try {
      about = v8.deserialize(last === undefined ? Buffer.alloc(0) : readPart(last));
    } catch {
      return corrupt('undecodable payload');
    }
    const a = about as Partial<StoredIndexAbout> | null;
    if (a === null || typeof a !== 'object' || typeof a.path !== 'string' || typeof a.digest !== 'string' || !isCheckpointMeta(a.meta)) return corrupt('unexpected shape');
    const loaded: LoadedIndex = {
      about: a as StoredIndexAbout,
      *pieces() {
        for (const part of parts) yield readPart(part);
      },
      close: () => source.close(),
    };
    opened = loaded;
    return loaded;
  } catch (error) {
    return { miss: true, warning: `cache file ${file} cannot be read (${(error as Error).message}); ignored` };
  } finally {
    if (opened === undefined) source.close();
  }
}

/** A stored index read back, and the check, running meanwhile, that the file still starts with the bytes it was built from. */
export interface Resumed {
  readonly checkpoint: IndexCheckpoint;
  /** The SHA-256 of the checkpoint's bytes when it was stored. */
  readonly digest: string;
  /** Hashing the file's first bytes on another thread. */
  readonly hasher: BackgroundHash;
}

/**
 * The stored index of `file`, read back while another thread hashes the
 * file's first bytes (the caller compares, then stops the hasher); undefined
 * when there is none for this file as it is now (another inode, or shorter).
 */
export function storedIndexOf(
  config: CacheConfig,
  file: string,
  identity: { dev: string; ino: string; size: number },
  warn: (warning: string) => void,
): Resumed | undefined {
  const entry = indexPath(config, file);
  const loaded = readStoredIndex(entry);
  if ('miss' in loaded) {
    if (loaded.warning !== undefined) warn(loaded.warning);
    return undefined;
  }
  const { about } = loaded;
  const length = about.meta.stats.byteLength;
  if (about.path !== file || about.dev !== identity.dev || about.ino !== identity.ino || length > identity.size) {
    loaded.close();
    return undefined; // another file, or one that is not longer: read from the start
  }
  const hasher = hashInBackground(file, length);
  let checkpoint: IndexCheckpoint | undefined;
  try {
    checkpoint = decodeCheckpoint(about.meta, loaded.pieces());
  } catch {
    // The stored index could not be read to its end (a disk error): read the session from the start.
  } finally {
    loaded.close();
  }
  if (checkpoint === undefined) {
    hasher.stop();
    return undefined;
  }
  return { checkpoint, digest: about.digest, hasher };
}
