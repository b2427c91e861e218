/**
 * In a run bounded by memory, the check and the planner collect garbage
 * between the big steps of a big input (tuning.ts: collectGarbage); nowhere
 * else, and never in library use.
 */
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, COLLECTED_INPUT_BYTES, collectGarbage, tuneV8 } from '../../src/tuning.js';

describe('collecting garbage between big steps', () => {
  it('happens only in a tuned, bounded process, and only for a big input', async () => {
    expect(collectGarbage(COLLECTED_INPUT_BYTES)).toBe(false); // library use: left alone
    expect(tuneV8({ ...process.versions, v8: '11.3.244.8-node.33' })).toBe(true);
    expect(collectGarbage(COLLECTED_INPUT_BYTES)).toBe(false); // tuned, not bounded
    expect(boundHeapGrowth()).toBe(true);
    expect(collectGarbage(COLLECTED_INPUT_BYTES - 1)).toBe(false);

    let garbage: object | undefined = { rows: Array.from({ length: 1000 }, (_, i) => ({ i })) };
    const collected = new WeakRef(garbage);
    garbage = undefined;
    await tick(); // a weak reference holds its target until the end of the job that made it
    expect(collectGarbage(COLLECTED_INPUT_BYTES)).toBe(true);
    expect(collected.deref()).toBeUndefined();
  });
});
