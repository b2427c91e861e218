import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { writeAtomically } from '../../src/core/atomic-write.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-atomic-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('writeAtomically', () => {
  it('writes every byte of string and Buffer parts when the system writes fewer than asked (a short write)', () => {
    const original = fs.writeSync.bind(fs) as (...args: unknown[]) => number;
    // At most 3 bytes a call, as write(2) may do on a full disk or a signal.
    vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, data: Buffer | string, offset?: number, length?: number) => {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data.subarray(offset ?? 0, (offset ?? 0) + (length ?? data.length));
      return original(fd, bytes, 0, Math.min(3, bytes.length));
    }) as typeof fs.writeSync);
    const file = path.join(dir, 'out.json');
    writeAtomically(file, (write) => {
      write('{"name":"é ü 日本",');
      write(Buffer.from('"more":[1,2,3]'));
      write('}\n');
    });
    expect(fs.readFileSync(file, 'utf8')).toBe('{"name":"é ü 日本","more":[1,2,3]}\n');
    expect(fs.readdirSync(dir)).toEqual(['out.json']);
  });

  it('leaves the old file as it was, and no temporary file, when filling fails', () => {
    const file = path.join(dir, 'out.json');
    fs.writeFileSync(file, 'old\n');
    expect(() =>
      writeAtomically(file, (write) => {
        write('new, half');
        throw new Error('disk on fire');
      }),
    ).toThrow('disk on fire');
    expect(fs.readFileSync(file, 'utf8')).toBe('old\n');
    expect(fs.readdirSync(dir)).toEqual(['out.json']);
  });

  it('gives the new file the mode asked to keep, whatever the umask', () => {
    const file = path.join(dir, 'out.json');
    writeAtomically(file, (write) => write('x'), { keepMode: 0o640 });
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
  });
});
