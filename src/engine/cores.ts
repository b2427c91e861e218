/**
 * How many cores other processes leave free, measured rather than guessed:
 * the CPU time every core spent busy over an interval, less this process's
 * own. The load average lags by a minute and counts this process's own
 * earlier work, so on a quiet two-core machine a second search right after
 * another saw no free core and ran on one thread.
 */
import os from 'node:os';

export interface CpuSnapshot {
  readonly cores: readonly os.CpuInfo[];
  /** This process's CPU time, microseconds. */
  readonly ownMicros: number;
}

export function cpuSnapshot(): CpuSnapshot {
  const own = process.cpuUsage();
  return { cores: os.cpus(), ownMicros: own.user + own.system };
}

/**
 * Taken when the engine loads, at the start of a command: what happens
 * between it and a decision (loading, walking the folders) is the interval
 * measured.
 */
export const LOADED: CpuSnapshot = cpuSnapshot();

/** Intervals shorter than this (per core, in ms) say too little: the kernel counts in 10 ms ticks. */
const MIN_INTERVAL_MS = 40;

/**
 * Cores not used by other processes between two snapshots (fractional), or
 * undefined when the interval was too short to tell.
 */
export function freeCores(before: CpuSnapshot, after: CpuSnapshot): number | undefined {
  const n = Math.min(before.cores.length, after.cores.length);
  if (n === 0) return undefined;
  let busy = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const a = (before.cores[i] as os.CpuInfo).times;
    const b = (after.cores[i] as os.CpuInfo).times;
    const coreBusy = b.user - a.user + (b.nice - a.nice) + (b.sys - a.sys) + (b.irq - a.irq);
    busy += coreBusy;
    total += coreBusy + (b.idle - a.idle);
  }
  const interval = total / n;
  if (interval < MIN_INTERVAL_MS) return undefined;
  const ownMs = (after.ownMicros - before.ownMicros) / 1000;
  const othersBusy = Math.max(0, busy - ownMs) / interval;
  return Math.max(0, n - othersBusy);
}
