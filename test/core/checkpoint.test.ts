/**
 * An index built from a checkpoint of a file's first lines, kept the way the
 * cache keeps it (v8-serialised, read back), and the rest of the file is the
 * index a read from the start builds: every field of every summary, the
 * damaged lines, the stats, the line table and the uuid tables.
 */
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/core/checkpoint.js';
import { classifyPath } from '../../src/core/discovery.js';
import { bufferSource } from '../../src/core/reader.js';
import { type IndexCheckpoint, SessionIndex } from '../../src/core/session-index.js';
import { corpusFiles, SHARED_CORPUS } from '../support/corpus.js';
import { EVERY_KIND_OF_LINE, observedIndex } from '../support/observed-index.js';

const FILE = classifyPath(path.join(path.sep, 'projects', '-home-u-proj', '0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl'), path.sep);

const build = (bytes: Buffer, from?: IndexCheckpoint): SessionIndex => SessionIndex.build(FILE, () => bufferSource(bytes), undefined, from);


/** The checkpoint of the index of `bytes[0, cut)`, through the cache's form of it and back. */
function kept(bytes: Buffer, cut: number): IndexCheckpoint {
  const checkpoint = build(bytes.subarray(0, cut)).checkpoint();
  if (checkpoint === undefined) throw new Error(`no checkpoint at ${cut}`);
  const pieces: Buffer[] = [];
  const meta = encodeCheckpoint(checkpoint, (piece) => pieces.push(Buffer.from(piece)));
  const back = decodeCheckpoint(v8.deserialize(v8.serialize(meta)), pieces);
  if (back === undefined) throw new Error('checkpoint not read back');
  return back;
}

/** Byte offsets just after each of a few `\n`s of `bytes`, and after the last. */
function cuts(bytes: Buffer, how: number): number[] {
  const ends: number[] = [];
  for (let i = bytes.indexOf(0x0a); i !== -1; i = bytes.indexOf(0x0a, i + 1)) ends.push(i + 1);
  if (ends.length <= how) return ends;
  return Array.from({ length: how }, (_, k) => ends[Math.floor(((k + 1) * (ends.length - 1)) / how)] as number);
}

const line = (o: object): string => `${JSON.stringify(o)}\n`;

describe('SessionIndex.checkpoint and build from it', () => {
  it('has no checkpoint for a file whose last line is not complete, or an empty one', () => {
    expect(build(Buffer.from('{"type":"user","uuid":"a"}\n{"type":"us')).checkpoint()).toBeUndefined();
    expect(build(Buffer.from('{"type":"user","uuid":"a"}')).checkpoint()).toBeUndefined();
    expect(build(Buffer.alloc(0)).checkpoint()).toBeUndefined();
    expect(build(Buffer.from('{"type":"user","uuid":"a"}\n')).checkpoint()?.stats.byteLength).toBe(27);
  });

  it('goes on to the index a read from the start builds, across every kind of line and link', () => {
    const text = EVERY_KIND_OF_LINE;
    const whole = observedIndex(build(text));
    for (const cut of cuts(text, 100)) {
      expect(observedIndex(build(text, kept(text, cut))), `cut at ${cut}`).toEqual(whole);
    }
  });

  it('goes on to the same index as a read from the start on every file of the corpus', () => {
    const files = [...corpusFiles(), ...(SHARED_CORPUS.available ? corpusFiles(SHARED_CORPUS) : [])];
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = fs.readFileSync(file.absolute);
      const whole = observedIndex(build(bytes));
      for (const cut of cuts(bytes, 3)) expect(observedIndex(build(bytes, kept(bytes, cut))), `${file.relative} at ${cut}`).toEqual(whole);
    }
  });

  it('reads only the bytes after the checkpoint', () => {
    const head = line({ type: 'user', uuid: 'a', parentUuid: null, message: { role: 'user', content: 'one' } });
    const bytes = Buffer.from(head + line({ type: 'user', uuid: 'b', parentUuid: 'a', message: { role: 'user', content: 'two' } }));
    const from = kept(bytes, head.length);
    const positions: number[] = [];
    const source = bufferSource(bytes);
    const index = SessionIndex.build(FILE, () => ({ ...source, size: source.size, read: (t, o, l, p) => (positions.push(p), source.read(t, o, l, p)) }), undefined, from);
    expect(Math.min(...positions)).toBe(head.length);
    expect(index.records.map((r) => index.parentOf(r)?.uuid)).toEqual([undefined, 'a']);
  });

  it('refuses an observer: it would not see the lines before the checkpoint', () => {
    const bytes = Buffer.from('{"type":"user","uuid":"a"}\n');
    const observer = { wants: () => true, record: () => undefined };
    expect(() => SessionIndex.build(FILE, () => bufferSource(bytes), observer, kept(bytes, bytes.length))).toThrow(/observer/);
  });

  it('reads back nothing from a stored checkpoint of another format or shape', () => {
    const bytes = Buffer.from('{"type":"user","uuid":"a"}\n{"type":"user","uuid":"b"}\n');
    const pieces: Buffer[] = [];
    const meta = encodeCheckpoint(kept(bytes, bytes.length), (piece) => pieces.push(piece));
    expect(decodeCheckpoint(meta, pieces)?.records.map((r) => r.uuid)).toEqual(['a', 'b']);
    expect(decodeCheckpoint({ ...meta, format: 0 }, pieces)).toBeUndefined();
    expect(decodeCheckpoint(meta, [Buffer.from('[not json')])).toBeUndefined();
    expect(decodeCheckpoint(meta, [])).toBeUndefined();
    expect(() => decodeCheckpoint(meta, (function* () { throw new Error("a piece could not be read"); })())).toThrow("a piece could not be read");
    expect(decodeCheckpoint({ ...meta, lineOffsets: new Float64Array(5) }, pieces)).toBeUndefined();
    expect(decodeCheckpoint({ ...meta, stats: null }, pieces)).toBeUndefined();
    expect(decodeCheckpoint(null, pieces)).toBeUndefined();
  });

  it('reads back nothing from rows that name what is not there (a hand-made file whose checksum holds)', () => {
    const bytes = Buffer.from('{"type":"user","uuid":"a","parentUuid":null}\n{"type":"user","uuid":"b","parentUuid":"a"}\n');
    const pieces: Buffer[] = [];
    const meta = encodeCheckpoint(build(bytes).checkpoint() as IndexCheckpoint, (piece) => pieces.push(piece));
    const rows = JSON.parse((pieces[0] as Buffer).toString('utf8')) as unknown[][];
    expect(rows[1]?.[3]).toBe(1); // the parent, as the record before it
    const edited = (edit: (rows: unknown[][]) => void): Buffer[] => {
      const copy = JSON.parse(JSON.stringify(rows)) as unknown[][];
      edit(copy);
      return [Buffer.from(JSON.stringify(copy))];
    };
    expect(decodeCheckpoint(meta, edited(() => undefined))?.records.map((r) => r.parentUuid)).toEqual([null, 'a']);
    expect(decodeCheckpoint(meta, edited((r) => ((r[1] as unknown[])[3] = 2)))).toBeUndefined();
    expect(decodeCheckpoint(meta, edited((r) => ((r[0] as unknown[])[6] = 99)))).toBeUndefined();
    expect(decodeCheckpoint(meta, edited((r) => ((r[0] as unknown[])[17] = 'x')))).toBeUndefined();
    expect(decodeCheckpoint(meta, edited((r) => (r[0] = [1, 2, 3])))).toBeUndefined();
    expect(decodeCheckpoint(meta, edited((r) => (r[0] = 'row' as unknown as unknown[])))).toBeUndefined();
  });

  it('writes its rows in pieces of a few thousand, one at a time', () => {
    const bytes = Buffer.from(Array.from({ length: 20_000 }, (_, i) => `{"type":"user","uuid":"u${i}"}\n`).join(''));
    const sizes: number[] = [];
    const meta = encodeCheckpoint(build(bytes).checkpoint() as IndexCheckpoint, (piece) => sizes.push(piece.length));
    expect(meta.pieces).toBe(3);
    expect(sizes.length).toBe(3);
  });
});
