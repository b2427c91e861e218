/**
 * Which runs let the heap grow by big steps (tuning.ts): the commands that
 * only read do, the ones that write a transcript (`fix`, `restore`,
 * `rename`) grow it by small steps from their start.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { heapGrowthBounded, tuneV8 } from '../../src/tuning.js';
import { demoWithTeam } from '../support/tree.js';
import { run, sandbox, type Sandbox } from '../support/cli.js';

const boxes: Sandbox[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) box.cleanup();
});

describe('heap growth by command', () => {
  it('stays large for check and sessions, and is bounded by restore', async () => {
    const box = sandbox();
    boxes.push(box);
    const root = demoWithTeam(box);
    expect(tuneV8({ ...process.versions, v8: '11.3.244.8-node.33' })).toBe(true);
    await run(['check', root], { env: box.env, cwd: box.root });
    await run(['sessions', root], { env: box.env, cwd: box.root });
    expect(heapGrowthBounded()).toBe(false);
    const listed = await run(['restore', '--list'], { env: box.env, cwd: box.root });
    expect(listed.code).toBe(0);
    expect(heapGrowthBounded()).toBe(true);
  });
});
