/**
 * The heap grows by bigger steps (less collection time) until a run may
 * hold a big index: reading one transcript past BIG_INPUT_BYTES bounds it
 * for the rest of the run (tuning.ts). A sparse file stands for a big one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { transcriptSource } from '../../src/engine/linter.js';
import { BIG_INPUT_BYTES, boundHeapGrowth, heapGrowthBounded, tuneV8 } from '../../src/tuning.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-heap-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the heap of a tuned process', () => {
  it('is bounded once a transcript has been read past the big-input size, not before', () => {
    expect(boundHeapGrowth()).toBe(false); // not tuned: library use is left alone
    expect(heapGrowthBounded()).toBe(false);
    expect(tuneV8({ ...process.versions, v8: '11.3.244.8-node.33' })).toBe(true);
    const file = path.join(dir, 'big.jsonl');
    fs.writeFileSync(file, '');
    fs.truncateSync(file, BIG_INPUT_BYTES + 16); // sparse: no disk space
    const source = transcriptSource(file);
    const buffer = Buffer.alloc(16);
    try {
      expect(source.read(buffer, 0, 16, 0)).toBe(16);
      expect(source.read(buffer, 0, 8, BIG_INPUT_BYTES - 16)).toBe(8);
      expect(heapGrowthBounded()).toBe(false);
      expect(source.read(buffer, 0, 16, BIG_INPUT_BYTES - 8)).toBe(16);
      expect(heapGrowthBounded()).toBe(true);
    } finally {
      source.close();
    }
    expect(boundHeapGrowth()).toBe(false); // once
  });
});
