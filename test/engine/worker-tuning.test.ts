/**
 * V8's flags belong to the process, set by the main thread (tuning.ts); a
 * worker thread's own copy of the module is told so by its parent, so that
 * a big file linted on a worker bounds the heap's growth as on the main
 * thread.
 */
import { describe, expect, it } from 'vitest';
import { adoptTuning, boundHeapGrowth, isTuned } from '../../src/tuning.js';

describe('a worker thread', () => {
  it('bounds the heap only when its parent tuned the process', () => {
    expect(isTuned()).toBe(false);
    adoptTuning(false);
    expect(boundHeapGrowth()).toBe(false);
    adoptTuning(true);
    expect(isTuned()).toBe(true);
    expect(boundHeapGrowth()).toBe(true);
  });
});
