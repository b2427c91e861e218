/**
 * Hashing a file's first bytes on another thread: the digests are those of
 * the bytes asked for, a file that is too short or gone is no answer, and
 * the worker never keeps a process alive.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { hashInBackground } from '../../src/engine/background-hash.js';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function fileOf(bytes: Buffer): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-hash-'));
  folders.push(dir);
  const file = path.join(dir, 'f.jsonl');
  fs.writeFileSync(file, bytes);
  return file;
}

describe('hashInBackground', () => {
  // Over 8 MiB, so that the worker reads in more than one piece.
  const bytes = Buffer.alloc(9 * 1024 * 1024 + 123);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31 + (i >> 13)) & 0xff;

  it('gives the digest of the first bytes, then of the file through a later end and of the bytes in between', () => {
    const file = fileOf(bytes);
    const prefix = 8 * 1024 * 1024 + 7;
    const hasher = hashInBackground(file, prefix);
    expect(hasher.prefix()).toBe(sha256(bytes.subarray(0, prefix)));
    expect(hasher.prefix()).toBe(sha256(bytes.subarray(0, prefix)));
    expect(hasher.through(bytes.length - 5)).toEqual({
      whole: sha256(bytes.subarray(0, bytes.length - 5)),
      tail: sha256(bytes.subarray(prefix, bytes.length - 5)),
    });
    hasher.stop();
  });

  it('gives no answer for a file shorter than asked, or gone, or past its end', () => {
    const file = fileOf(bytes.subarray(0, 1000));
    expect(hashInBackground(file, 1001).prefix()).toBeUndefined();
    expect(hashInBackground(path.join(path.dirname(file), 'missing.jsonl'), 10).prefix()).toBeUndefined();
    const hasher = hashInBackground(file, 500);
    expect(hasher.prefix()).toBe(sha256(bytes.subarray(0, 500)));
    expect(hasher.through(2000)).toBeUndefined();
  });

  it('answers nothing more once stopped', () => {
    const file = fileOf(bytes.subarray(0, 1000));
    const hasher = hashInBackground(file, 10);
    hasher.stop();
    const started = Date.now();
    expect(hasher.through(20)).toBeUndefined();
    expect(hasher.prefix() === undefined || hasher.prefix() === sha256(bytes.subarray(0, 10))).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('never keeps a process alive: one that starts a hash and neither waits nor stops it exits at once', () => {
    const file = fileOf(bytes);
    const module = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/engine/background-hash.js');
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `import { hashInBackground } from ${JSON.stringify(module)}; hashInBackground(${JSON.stringify(file)}, 100); console.log('left');`], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ status: 0, stdout: 'left\n', stderr: '' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
