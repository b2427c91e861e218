/**
 * Which runs let the heap grow by big steps (tuning.ts): the commands that
 * only read do, the ones that write a transcript (`fix`, `restore`,
 * `rename`) grow it by small steps from their start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { boundHeapGrowth, heapGrowthBounded, tuneV8 } from '../../src/tuning.js';
import { demoWithTeam, jsonlFiles } from '../support/tree.js';
import { run, sandbox, type Sandbox } from '../support/cli.js';

// Counted, and still done: the bound is the process's and stays once set, so
// which commands ask for it is read from the calls.
vi.mock('../../src/tuning.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/tuning.js')>();
  return { ...actual, boundHeapGrowth: vi.fn(actual.boundHeapGrowth) };
});

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

  it('is asked for by every command that writes a transcript, and by no other', async () => {
    const box = sandbox();
    boxes.push(box);
    const root = demoWithTeam(box);
    const session = jsonlFiles(root).find((f) => path.basename(path.dirname(f)) !== 'subagents' && !path.basename(f).startsWith('agent-')) as string;
    fs.utimesSync(session, new Date(Date.now() - 3_600_000), new Date(Date.now() - 3_600_000)); // not live
    const asked = vi.mocked(boundHeapGrowth);
    const asks = async (argv: string[]): Promise<number> => {
      asked.mockClear();
      await run(argv, { env: box.env, cwd: box.root });
      return asked.mock.calls.length;
    };
    const readers = [['check', root], ['sessions', root], ['show', session], ['tree', session], ['search', 'the', root], ['export', session], ['rules']];
    for (const argv of readers) expect(await asks(argv), argv[0]).toBe(0);
    const writers = [['fix', '--dry-run', root], ['rename', session, 'A title'], ['restore', '--list']];
    for (const argv of writers) expect(await asks(argv), argv[0]).toBe(1);
  });
});
