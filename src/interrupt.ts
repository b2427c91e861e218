/**
 * Ctrl-C handling. Outside a write, stopping at once is safe (nothing is
 * half-written) and exits 130. Inside a critical section (backup, atomic
 * write, audit line) the interruption waits for the section to finish and
 * is then raised as an InterruptedError, so every file is either untouched
 * or fully written and audited.
 */
import { InterruptedError } from './core/errors.js';

let depth = 0;
let pending = false;

/** The process's SIGINT handler (installed by cli.ts). */
export function handleSigint(exitNow: () => void): void {
  if (depth > 0) {
    pending = true;
    return;
  }
  exitNow();
}

/** Runs `work` so that Ctrl-C cannot stop it half-way. */
export async function critical<T>(work: () => Promise<T> | T): Promise<T> {
  depth++;
  try {
    return await work();
  } finally {
    depth--;
    if (depth === 0 && pending) {
      pending = false;
      // eslint-disable-next-line no-unsafe-finally -- the interruption replaces the result on purpose
      throw new InterruptedError();
    }
  }
}
