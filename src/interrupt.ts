/**
 * Ctrl-C (SIGINT) and SIGTERM handling, installed by cli.ts before anything
 * else loads. Outside a critical section, stopping at once is safe (nothing
 * is half-written) and exits 130. Inside one (a commit: backup, swap, audit
 * line) the interruption waits for the section to finish and is then raised
 * as an InterruptedError, so every file is either untouched or fully
 * written and audited, and no later file is touched.
 *
 * A signal is only delivered between event-loop turns, so long work yields
 * ({@link pause}) and checks ({@link checkInterrupt}) between chunks: the
 * planner between passes and fixes, `fix` before each file and each write.
 */
import { InterruptedError } from './core/errors.js';

let depth = 0;
let pending = false;

/** The process's signal handler (installed by cli.ts). */
export function handleSigint(exitNow: () => void): void {
  if (depth > 0) {
    pending = true;
    return;
  }
  exitNow();
}

/** Marks an interruption to be raised at the next check (for callers that cannot exit at once, and tests). */
export function requestInterrupt(): void {
  pending = true;
}

/** Throws {@link InterruptedError} if an interruption is pending (and clears it). */
export function checkInterrupt(): void {
  if (pending && depth === 0) {
    pending = false;
    throw new InterruptedError();
  }
}

/** Lets the event loop run (so a pending signal is delivered), then checks for an interruption. */
export async function pause(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
  checkInterrupt();
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
