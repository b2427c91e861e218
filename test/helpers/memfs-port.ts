/**
 * An {@link FsPort} on a memfs volume, for writer tests: the same contract as
 * `nodeFs()` (new files created exclusively, renames that replace the target
 * while open handles keep the old inode, modes and owners kept, permissions
 * enforced by memfs), all in memory. `sleep` is a no-op unless a hook is given.
 */
import path from 'node:path';
import { createFsFromVolume, type Volume } from 'memfs';
import type { FileStat, FsPort } from '../../src/repair/fs-port.js';

export function memFs(volume: InstanceType<typeof Volume>, hooks: { sleep?: (ms: number) => void } = {}): FsPort {
  const fs = createFsFromVolume(volume);
  const statOf = (st: {
    size: unknown;
    mtimeMs: unknown;
    mode: unknown;
    ino: unknown;
    uid: unknown;
    gid: unknown;
    isSymbolicLink(): boolean;
    isFile(): boolean;
  }): FileStat => ({
    size: Number(st.size),
    mtimeMs: Number(st.mtimeMs),
    mode: Number(st.mode) & 0o7777,
    isSymbolicLink: st.isSymbolicLink(),
    isFile: st.isFile(),
    ino: Number(st.ino),
    uid: Number(st.uid),
    gid: Number(st.gid),
  });
  return {
    readFile: (file) => Buffer.from(fs.readFileSync(file) as Buffer),
    stat: (file) => statOf(fs.statSync(file) as never),
    lstat: (file) => statOf(fs.lstatSync(file) as never),
    exists: (file) => fs.existsSync(file),
    readdir: (dir) => (fs.readdirSync(dir) as string[]).map(String),
    mkdirp(dir, mode) {
      fs.mkdirSync(dir, { recursive: true, mode });
    },
    openRead(file) {
      if (fs.lstatSync(file).isSymbolicLink()) throw Object.assign(new Error(`ELOOP: symbolic link, open '${file}'`), { code: 'ELOOP' });
      const fd = fs.openSync(file, 'r');
      return {
        size: () => Number(fs.fstatSync(fd).size),
        ino: () => Number(fs.fstatSync(fd).ino),
        read(position, length, into) {
          const buffer = into !== undefined && into.length >= length ? into : Buffer.alloc(Math.max(0, length));
          const n = length > 0 ? fs.readSync(fd, buffer, 0, length, position) : 0;
          return buffer.subarray(0, n);
        },
        close: () => fs.closeSync(fd),
      };
    },
    writeNewFile(file, data, { mode, owner }) {
      // Each chunk is copied: the writer may reuse its buffer for the next one.
      fs.writeFileSync(file, Buffer.isBuffer(data) ? data : Buffer.concat([...data].map((chunk) => Buffer.from(chunk))), { mode, flag: 'wx' });
      // memfs lets anyone chown, as root may (nodeFs ignores the EPERM of a user who is not).
      if (owner !== undefined) fs.chownSync(file, owner.uid, owner.gid);
      fs.chmodSync(file, mode);
    },
    rename: (from, to) => fs.renameSync(from, to),
    appendFile(file, data, { mode }) {
      fs.appendFileSync(file, data, { mode });
    },
    link: (from, to) => fs.linkSync(from, to),
    unlink: (file) => fs.unlinkSync(file),
    chmod: (file, mode) => fs.chmodSync(file, mode),
    utimes(file, atimeMs, mtimeMs) {
      fs.utimesSync(file, new Date(atimeMs), new Date(mtimeMs));
    },
    sleep: (ms) => hooks.sleep?.(ms),
  };
}

/** A port whose listed operations throw EIO (or a given error) for paths under `prefix`. */
export function failingFs(
  inner: FsPort,
  prefix: string,
  operations: ReadonlyArray<keyof FsPort>,
  error: () => Error = () => Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }),
): FsPort {
  const wrapped = { ...inner } as Record<keyof FsPort, unknown>;
  for (const op of operations) {
    const original = inner[op] as (...args: unknown[]) => unknown;
    wrapped[op] = (...args: unknown[]) => {
      const target = args[0];
      if (typeof target === 'string' && (target === prefix || target.startsWith(prefix + path.sep))) throw error();
      return original(...args);
    };
  }
  return wrapped as unknown as FsPort;
}
