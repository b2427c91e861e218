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
import { READ_FLAGS, readWholeFile } from '../core/reader.js';

export interface FileStat {
  readonly size: number;
  readonly mtimeMs: number;
  /** Permission bits only (`mode & 0o7777`). */
  readonly mode: number;
  /** From `lstat` only: the path itself is a symbolic link. */
  readonly isSymbolicLink?: boolean | undefined;
  /** A regular file (not a folder, a named pipe, a device or a socket; from `lstat`, not a link). */
  readonly isFile: boolean;
  /** The inode number: two paths with the same one (on one device) are the same file. */
  readonly ino: number;
  /** The owner's user id. */
  readonly uid: number;
  /** The owner's group id. */
  readonly gid: number;
}

/** A file's owner and group (see {@link FsPort.writeNewFile}). */
export interface FileOwner {
  readonly uid: number;
  readonly gid: number;
}

/**
 * An open, read-only handle on one inode. It keeps reading that inode after
 * the path is renamed over, which is how the writer finds lines a live
 * Claude Code appended to the old file after the swap.
 */
export interface ReadHandle {
  /** Current size of the inode. */
  size(): number;
  /** The inode number (see {@link FileStat.ino}). */
  ino(): number;
  /**
   * Up to `length` bytes from `position` (fewer at the end); into `into`
   * when given (then valid until it is used again), else a new buffer.
   */
  read(position: number, length: number, into?: Buffer): Buffer;
  close(): void;
}

export interface FsPort {
  readFile(file: string): Buffer;
  /** Throws (ENOENT…) when the path does not exist. Follows links. */
  stat(file: string): FileStat;
  /** Like `stat`, but describes a link itself (`isSymbolicLink`). */
  lstat(file: string): FileStat;
  exists(file: string): boolean;
  /** Entry names of a folder. */
  readdir(dir: string): string[];
  /** `mkdir -p`; `mode` applies to the folders it creates. */
  mkdirp(dir: string, mode: number): void;
  /** Opens a file for reading (see {@link ReadHandle}). */
  openRead(file: string): ReadHandle;
  /**
   * Creates a new file (fails if it exists) with `mode`, writes `data` (a
   * buffer, or buffers in order, each valid only until the next is asked
   * for: a big file is never held whole), fsyncs it and its folder.
   *
   * With `owner`, the new file is given that owner and group (through its
   * open descriptor, never a path) where they differ from the ones it was
   * created with: the file that will replace a transcript keeps the
   * transcript's owner, so a `sudo cclint fix` does not leave a session its
   * user's Claude Code can no longer append to. Where the owner cannot be
   * given (EPERM: a user who is not root cannot give a file away) the file
   * keeps the writer's owner, without an error.
   */
  writeNewFile(
    file: string,
    data: Buffer | Iterable<Buffer>,
    options: { readonly mode: number; readonly owner?: FileOwner | undefined },
  ): void;
  /** Renames (replacing `to` atomically) and fsyncs the folder. */
  rename(from: string, to: string): void;
  /** Appends and fsyncs; `mode` applies when the file is created. */
  appendFile(file: string, data: string | Buffer, options: { readonly mode: number }): void;
  /** Makes `to` a second name (hard link) of the file at `from`, and fsyncs the folder. */
  link(from: string, to: string): void;
  unlink(file: string): void;
  chmod(file: string, mode: number): void;
  /** Sets both times, in milliseconds since the epoch. */
  utimes(file: string, atimeMs: number, mtimeMs: number): void;
  /** Waits (blocking) this many milliseconds; tests make it a no-op or a hook. */
  sleep(ms: number): void;
}

function fsyncDir(dir: string): void {
  // Makes a rename or a new file durable where the platform allows a folder fsync.
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

function statOf(st: fs.Stats): FileStat {
  return {
    size: st.size,
    mtimeMs: st.mtimeMs,
    mode: st.mode & 0o7777,
    isSymbolicLink: st.isSymbolicLink(),
    isFile: st.isFile(),
    ino: st.ino,
    uid: st.uid,
    gid: st.gid,
  };
}

/**
 * Gives the file open at `fd` the owner and group in `owner`, each only
 * where it differs from the file's (-1 leaves one as it is, so a user who
 * may change only the group needs no more). Through the descriptor: the
 * path could be swapped for a link to another file meanwhile, and a chown
 * through it would then give that file away.
 */
function giveOwner(fd: number, owner: FileOwner): void {
  const st = fs.fstatSync(fd);
  const uid = st.uid === owner.uid ? -1 : owner.uid;
  const gid = st.gid === owner.gid ? -1 : owner.gid;
  if (uid === -1 && gid === -1) return;
  try {
    fs.fchownSync(fd, uid, gid);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Quietly, for these alone. EPERM: the writer is not root (only root
    // may give a file to another user, and anyone else only to a group
    // they are in). Such a user fixes their own file in the usual case and
    // never gets here; otherwise they could read the file and write its
    // folder, and the new file is theirs like any file they write there:
    // failing the fix would make nothing better. ENOTSUP and EINVAL: a file
    // system without owners (FAT, some network mounts) or an id it cannot
    // map (a user namespace): there is no owner to keep.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'EINVAL') return;
    throw error;
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** The real file system. */
export function nodeFs(): FsPort {
  return {
    readFile: (file) => readWholeFile(file),
    stat: (file) => statOf(fs.statSync(file)),
    lstat: (file) => statOf(fs.lstatSync(file)),
    exists: (file) => fs.existsSync(file),
    readdir: (dir) => fs.readdirSync(dir),
    mkdirp(dir, mode) {
      fs.mkdirSync(dir, { recursive: true, mode });
    },
    openRead(file) {
      // O_NOFOLLOW where the platform has it: never read through a link swapped in.
      const fd = fs.openSync(file, READ_FLAGS | (fs.constants.O_NOFOLLOW ?? 0));
      return {
        size: () => fs.fstatSync(fd).size,
        ino: () => fs.fstatSync(fd).ino,
        read(position, length, into) {
          const buffer = into !== undefined && into.length >= length ? into : Buffer.allocUnsafe(Math.max(0, length));
          let got = 0;
          while (got < length) {
            const n = fs.readSync(fd, buffer, got, length - got, position + got);
            if (n === 0) break;
            got += n;
          }
          return buffer.subarray(0, got);
        },
        close: () => fs.closeSync(fd),
      };
    },
    writeNewFile(file, data, { mode, owner }) {
      const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), mode);
      try {
        for (const chunk of Buffer.isBuffer(data) ? [data] : data) {
          let written = 0;
          while (written < chunk.length) written += fs.writeSync(fd, chunk, written, chunk.length - written);
        }
        // Owner before mode: a chown may clear the set-user-ID and set-group-ID bits.
        if (owner !== undefined) giveOwner(fd, owner);
        fs.fchmodSync(fd, mode);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fsyncDir(path.dirname(file));
    },
    rename(from, to) {
      fs.renameSync(from, to);
      fsyncDir(path.dirname(to));
    },
    appendFile(file, data, { mode }) {
      // Not blocking on a named pipe (an open for writing waits for a reader, in a call no signal ends), and only to a regular file.
      const flags = fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
      const fd = fs.openSync(file, flags, mode);
      try {
        if (!fs.fstatSync(fd).isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: 'EFTYPE' });
        const buffer = typeof data === 'string' ? Buffer.from(data) : data;
        let written = 0;
        while (written < buffer.length) written += fs.writeSync(fd, buffer, written, buffer.length - written);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    },
    link(from, to) {
      fs.linkSync(from, to);
      fsyncDir(path.dirname(to));
    },
    unlink: (file) => fs.unlinkSync(file),
    chmod: (file, mode) => fs.chmodSync(file, mode),
    utimes(file, atimeMs, mtimeMs) {
      fs.utimesSync(file, new Date(atimeMs), new Date(mtimeMs));
    },
    sleep(ms) {
      Atomics.wait(sleeper, 0, 0, ms);
    },
  };
}

/** Removes a file if it is there; never throws (the caller reports the real error). */
export function removeQuietly(port: FsPort, file: string): void {
  try {
    if (port.exists(file)) port.unlink(file);
  } catch {
    // Nothing more to do.
  }
}

/** An error's message with its code (EACCES…) when the message lacks it. */
export function errorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
}

/** The first `bytes` bytes of `file` as UTF-8 ('' when it cannot be read). */
export function headOfFile(port: FsPort, file: string, bytes: number): string {
  try {
    const handle = port.openRead(file);
    try {
      return handle.read(0, Math.min(bytes, handle.size())).toString('utf8');
    } finally {
      handle.close();
    }
  } catch {
    return '';
  }
}
