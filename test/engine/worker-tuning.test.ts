/**
 * V8's flags belong to the process, set by the main thread (tuning.ts); a
 * worker thread's own copy of the module is told so by its parent
 * (`adoptTuning`), so that a big file linted on a worker bounds the heap's
 * growth as on the main thread. What this checks is the module's side: a
 * thread bounds the heap only once told its process was tuned. That the
 * lint and search workers are told is the `tuned` field their inputs must
 * carry (a required field: leaving it out does not compile) and the
 * `adoptTuning(input.tuned)` line of each worker, which no test runs on a
 * worker thread.
 */
import { describe, expect, it } from 'vitest';
import { adoptTuning, boundHeapGrowth, isTuned } from '../../src/tuning.js';

describe('a worker thread', () => {
  it('bounds the heap only once told that its process was tuned', () => {
    expect(isTuned()).toBe(false);
    adoptTuning(false);
    expect(boundHeapGrowth()).toBe(false);
    adoptTuning(true);
    expect(isTuned()).toBe(true);
    expect(boundHeapGrowth()).toBe(true);
  });
});
