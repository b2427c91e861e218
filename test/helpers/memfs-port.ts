/**
 * An {@link FsPort} on a memfs volume, for writer tests: the same contract as
 * `nodeFs()` (atomic write = temp file beside the target + rename, modes
 * kept, permissions enforced by memfs), all in memory.
 */
import path from 'node:path';
import { createFsFromVolume, type Volume } from 'memfs';
import type { FsPort } from '../../src/repair/fs-port.js';

let counter = 0;

export function memFs(volume: InstanceType<typeof Volume>): FsPort {
  const fs = createFsFromVolume(volume);
  return {
    readFile: (file) => Buffer.from(fs.readFileSync(file) as Buffer),
    stat(file) {
      const st = fs.statSync(file);
      return { size: Number(st.size), mtimeMs: Number(st.mtimeMs), mode: Number(st.mode) & 0o7777 };
    },
    exists: (file) => fs.existsSync(file),
    readdir: (dir) => (fs.readdirSync(dir) as string[]).map(String),
    mkdirp(dir, mode) {
      fs.mkdirSync(dir, { recursive: true, mode });
    },
    writeFileAtomic(file, data, { mode }) {
      const temp = `${file}.${(++counter * 2654435761) >>> 0}`;
      try {
        fs.writeFileSync(temp, data, { mode });
        fs.chmodSync(temp, mode);
        fs.renameSync(temp, file);
      } catch (error) {
        try {
          fs.unlinkSync(temp);
        } catch {
          // not created
        }
        throw error;
      }
    },
    writeNewFile(file, data, { mode }) {
      fs.writeFileSync(file, data, { mode, flag: 'wx' });
      fs.chmodSync(file, mode);
    },
    appendFile(file, data, { mode }) {
      fs.appendFileSync(file, data, { mode });
    },
    unlink: (file) => fs.unlinkSync(file),
    utimes(file, atimeMs, mtimeMs) {
      fs.utimesSync(file, new Date(atimeMs), new Date(mtimeMs));
    },
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
