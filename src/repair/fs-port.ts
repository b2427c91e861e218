/**
 * The file-system port of the writer: the few operations `commitPlan` and
 * `restore` need, behind an interface, so unit tests run them on an
 * in-memory volume (`test/helpers/memfs-port.ts`) and simulate concurrent
 * writers, failing disks and permissions without touching a real folder.
 *
 * Everything is synchronous on purpose: a commit is never split across event
 * loop turns, so a Ctrl-C handler cannot run in the middle of one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type writeFileAtomicModule from 'write-file-atomic';

export interface FileStat {
  readonly size: number;
  readonly mtimeMs: number;
  /** Permission bits only (`mode & 0o7777`). */
  readonly mode: number;
}

export interface FsPort {
  readFile(file: string): Buffer;
  /** Throws (ENOENT…) when the path does not exist. */
  stat(file: string): FileStat;
  exists(file: string): boolean;
  /** Entry names of a folder. */
  readdir(dir: string): string[];
  /** `mkdir -p`; `mode` applies to the folders it creates. */
  mkdirp(dir: string, mode: number): void;
  /**
   * Replaces `file` by writing a temp file beside it, fsyncing it and renaming
   * it over the path (a new inode). The file gets `mode`.
   */
  writeFileAtomic(file: string, data: Buffer, options: { readonly mode: number }): void;
  /** Creates a new file (fails if it exists) with `mode`, and fsyncs it. */
  writeNewFile(file: string, data: Buffer, options: { readonly mode: number }): void;
  /** Appends and fsyncs; `mode` applies when the file is created. */
  appendFile(file: string, data: string, options: { readonly mode: number }): void;
  unlink(file: string): void;
  /** Sets both times, in milliseconds since the epoch. */
  utimes(file: string, atimeMs: number, mtimeMs: number): void;
}

/**
 * Whether `name` (in the target's folder) is named like a temp file of
 * `write-file-atomic` for `target`: the target's name, a dot and an unsigned
 * 32-bit number. A process killed with SIGKILL while writing one cannot
 * remove it; `recoverInterruptedWrites` in write.ts does, later.
 */
export function isAtomicTempName(target: string, name: string): boolean {
  const base = path.basename(target);
  return name.length > base.length + 1 && name.startsWith(`${base}.`) && /^\d{1,10}$/.test(name.slice(base.length + 1));
}

function fsyncDir(dir: string): void {
  // Makes the rename durable where the platform allows a folder fsync.
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Not supported (Windows) or not permitted: the rename is still atomic.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The real file system. Atomic writes go through `write-file-atomic` (fsync on). */
export function nodeFs(): FsPort {
  return {
    readFile: (file) => fs.readFileSync(file),
    stat(file) {
      const st = fs.statSync(file);
      return { size: st.size, mtimeMs: st.mtimeMs, mode: st.mode & 0o7777 };
    },
    exists: (file) => fs.existsSync(file),
    readdir: (dir) => fs.readdirSync(dir),
    mkdirp(dir, mode) {
      fs.mkdirSync(dir, { recursive: true, mode });
    },
    writeFileAtomic(file, data, { mode }) {
      // Also keeps the owner (its default when no `chown` is given).
      // Loaded on first write: commands that never write should not pay for it.
      const writeFileAtomic = createRequire(import.meta.url)('write-file-atomic') as typeof writeFileAtomicModule;
      writeFileAtomic.sync(file, data, { mode, fsync: true });
      fsyncDir(path.dirname(file));
    },
    writeNewFile(file, data, { mode }) {
      const fd = fs.openSync(file, 'wx', mode);
      try {
        let written = 0;
        while (written < data.length) written += fs.writeSync(fd, data, written, data.length - written);
        fs.fchmodSync(fd, mode);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fsyncDir(path.dirname(file));
    },
    appendFile(file, data, { mode }) {
      const fd = fs.openSync(file, 'a', mode);
      try {
        fs.writeSync(fd, data);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    },
    unlink: (file) => fs.unlinkSync(file),
    utimes(file, atimeMs, mtimeMs) {
      fs.utimesSync(file, new Date(atimeMs), new Date(mtimeMs));
    },
  };
}
