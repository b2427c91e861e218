/**
 * A session indexed in two parts (the part after a line boundary on another
 * thread, its index sent back encoded) is the index a read from the start
 * builds: checked in-process at every line boundary of a file with every
 * kind of damaged line and at a few of every corpus file, and through the
 * built binary, whose worker thread does the second part.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { fileSource } from '../../src/core/reader.js';
import { SessionIndex } from '../../src/core/session-index.js';
import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { type EncodedPart, indexBefore, indexPart, joinParts, splitBytesOf, workOnPart } from '../../src/engine/split-parse.js';
import { corpusFiles, SHARED_CORPUS } from '../support/corpus.js';
import { EVERY_KIND_OF_LINE, observedIndex } from '../support/observed-index.js';
import { repositoryRoot } from '../support/tree.js';

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** `bytes` as a session file of a project folder in a temporary projects root. */
function sessionOf(bytes: Buffer): { root: string; file: ReturnType<typeof classifyPath> } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-split-'));
  folders.push(root);
  const dir = path.join(root, '-home-u-proj');
  fs.mkdirSync(dir);
  const file = path.join(dir, '0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl');
  fs.writeFileSync(file, bytes);
  return { root, file: classifyPath(file, root) };
}


/** The index of `file` built in two parts split at `split`, the second part sent as a thread would send it. */
function inTwoParts(file: ReturnType<typeof classifyPath>, split: number, size: number): SessionIndex {
  const before = indexBefore(file, split);
  const sent = v8.deserialize(v8.serialize(indexPart(file, split, size))) as EncodedPart;
  const index = joinParts(file, before, size, sent);
  if (index === undefined) throw new Error('the parts did not join');
  return index;
}

/** Offsets where a line starts (after each `\n` but the last byte's). */
function lineStarts(bytes: Buffer): number[] {
  const starts: number[] = [];
  for (let i = bytes.indexOf(0x0a); i !== -1 && i + 1 < bytes.length; i = bytes.indexOf(0x0a, i + 1)) starts.push(i + 1);
  return starts;
}

const line = (o: object): string => `${JSON.stringify(o)}\n`;

describe('a session indexed in two parts', () => {
  it('is the index a read from the start builds, split at every line of a file with every kind of line', () => {
    const bytes = EVERY_KIND_OF_LINE;
    const { file } = sessionOf(bytes);
    const whole = observedIndex(SessionIndex.build(file, () => fileSource(file.path)));
    const starts = lineStarts(bytes);
    expect(starts.length).toBe(16);
    for (const split of starts) expect(observedIndex(inTwoParts(file, split, bytes.length)), `split at ${split}`).toEqual(whole);
  });

  it('is the index a read from the start builds on every file of the corpus, split at a few lines', () => {
    const files = [...corpusFiles(), ...(SHARED_CORPUS.available ? corpusFiles(SHARED_CORPUS) : [])];
    for (const corpusFile of files) {
      const bytes = fs.readFileSync(corpusFile.absolute);
      const starts = lineStarts(bytes);
      if (starts.length === 0) continue;
      const { file } = sessionOf(bytes);
      const whole = observedIndex(SessionIndex.build(file, () => fileSource(file.path)));
      for (const k of [0.25, 0.5, 0.9]) {
        const split = starts[Math.floor(k * (starts.length - 1))] as number;
        expect(observedIndex(inTwoParts(file, split, bytes.length)), `${corpusFile.relative} split at ${split}`).toEqual(whole);
      }
    }
  });

  it('the worker side posts its part, then says it is done; or says it failed', () => {
    const bytes = Buffer.from(`${line({ type: 'user', uuid: 'a', parentUuid: null })}${line({ type: 'user', uuid: 'b', parentUuid: 'a' })}`);
    const { file } = sessionOf(bytes);
    const split = (lineStarts(bytes)[0] as number);
    const shared = new SharedArrayBuffer(8);
    const { port1, port2 } = new MessageChannel();
    workOnPart({ file, start: split, end: bytes.length, shared, port: port2 });
    expect(new Int32Array(shared)[0]).toBe(1);
    const sent = receiveMessageOnPort(port1)?.message as EncodedPart;
    expect(joinParts(file, indexBefore(file, split), bytes.length, sent)?.records.map((r) => r.uuid)).toEqual(['a', 'b']);
    port1.close();
    const failed = new SharedArrayBuffer(8);
    const other = new MessageChannel();
    workOnPart({ file: { ...file, path: `${file.path}.gone` }, start: 0, end: 10, shared: failed, port: other.port2 });
    expect(new Int32Array(failed)[0]).toBe(2);
    expect(receiveMessageOnPort(other.port1)).toBeUndefined();
    other.port1.close();
  });

  it('reads CCLINT_SPLIT_MB, 128 by default', () => {
    expect(splitBytesOf({})).toBe(128 * 1024 * 1024);
    expect(splitBytesOf({ CCLINT_SPLIT_MB: '0' })).toBe(0);
    expect(splitBytesOf({ CCLINT_SPLIT_MB: '2.5' })).toBe(2.5 * 1024 * 1024);
    expect(splitBytesOf({ CCLINT_SPLIT_MB: 'lots' })).toBe(128 * 1024 * 1024);
  });

  it('gives what a run on one thread gives when every session is indexed on two (the built binary, a worker thread: check, show, tree)', () => {
    const bytes = Buffer.concat(corpusFiles().slice(0, 6).map((f) => fs.readFileSync(f.absolute)));
    const { root, file } = sessionOf(bytes);
    // And files too small to split: one newline, one line without one, one byte.
    for (const [name, text] of [['1', '\n'], ['2', '{"type":"user","uuid":"u"}'], ['3', 'x']] as const) {
      fs.writeFileSync(path.join(path.dirname(file.path), `${name}0000000-0000-4000-8000-000000000000.jsonl`), text);
    }
    const cli = path.join(repositoryRoot, 'dist', 'cli.js');
    const home = path.join(root, 'home');
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-split-home-'));
    folders.push(state);
    const env = { PATH: process.env.PATH ?? '', HOME: home, CLAUDE_CONFIG_DIR: path.join(home, '.claude'), CCLINT_HOME: state };
    const cclint = (args: string[], extra: Record<string, string>) =>
      spawnSync(process.execPath, [cli, ...args], { env: { ...env, ...extra }, encoding: 'utf8' });
    // check, and the commands that read one session (show, tree), which index it on two threads too.
    for (const args of [['check', '--format', 'json', root], ['show', file.path], ['tree', file.path]]) {
      const one = cclint(args, { CCLINT_THREADS: '1' });
      const two = cclint(args, { CCLINT_SPLIT_MB: '0' });
      expect(one.stdout.length, args[0]).toBeGreaterThan(100);
      expect({ args, stdout: two.stdout, stderr: two.stderr, status: two.status }).toEqual({ args, stdout: one.stdout, stderr: one.stderr, status: one.status });
    }
    // --cache: a session that has settled (unchanged for 2 s) is indexed on two threads as the cache is filled, and its
    // stored index then read on from once it grows.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2100);
    const cached = { CCLINT_SPLIT_MB: '0', CCLINT_CACHE_INDEX_MB: '0' };
    const args = ['check', '--format', 'json', root];
    const filled = cclint([...args, '--cache'], cached);
    // The one-newline file is noted, as without the cache.
    expect(filled.stderr).toMatch(/^cclint: \S+\/10000000-0000-4000-8000-000000000000\.jsonl: only blank lines, nothing to check\n$/);
    expect(filled.stdout).toBe(cclint(args, { CCLINT_THREADS: '1' }).stdout);
    expect(fs.readdirSync(path.join(env.CCLINT_HOME, 'cache')).some((n) => n.startsWith('index-'))).toBe(true);
    fs.appendFileSync(file.path, `${fs.readFileSync(file.path, 'utf8').split('\n')[1]}\n`);
    expect(cclint([...args, '--cache'], cached).stdout).toBe(cclint(args, { CCLINT_THREADS: '1' }).stdout);
  });
});
