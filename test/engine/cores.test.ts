/**
 * Free cores measured between two snapshots (src/engine/cores.ts): other
 * processes' CPU time counts against a core, this process's own does not,
 * and an interval too short to measure says nothing.
 */
import type os from 'node:os';
import { describe, expect, it } from 'vitest';
import { type CpuSnapshot, freeCores } from '../../src/engine/cores.js';

function core(busy: number, idle: number): os.CpuInfo {
  return { model: 'test', speed: 1, times: { user: busy, nice: 0, sys: 0, idle, irq: 0 } };
}

function snapshot(cores: ReadonlyArray<[number, number]>, ownMs: number): CpuSnapshot {
  return { cores: cores.map(([busy, idle]) => core(busy, idle)), ownMicros: ownMs * 1000 };
}

describe('freeCores', () => {
  const before = snapshot([[1000, 5000], [1000, 5000]], 0);

  it('counts both cores free when only this process worked', () => {
    // 200 ms: one core busy the whole time, all of it this process's.
    expect(freeCores(before, snapshot([[1200, 5000], [1000, 5200]], 200))).toBe(2);
  });

  it('counts a core busy with another process as taken', () => {
    expect(freeCores(before, snapshot([[1200, 5000], [1200, 5000]], 200))).toBe(1);
  });

  it('counts both taken when other processes keep both busy', () => {
    expect(freeCores(before, snapshot([[1200, 5000], [1200, 5000]], 0))).toBe(0);
  });

  it('says nothing of an interval shorter than the kernel tick can measure', () => {
    expect(freeCores(before, snapshot([[1010, 5000], [1000, 5010]], 10))).toBeUndefined();
  });

});
