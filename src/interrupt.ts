/**
 * Ctrl-C (SIGINT) and SIGTERM.
 *
 * A command that writes transcripts handles them ({@link handleInterrupts})
 * from its start (`fix`, `restore`), or from its one write on (`rename`,
 * whose reading and planning end at once, as a read-only command's do).
 * Outside a critical section, stopping at once is safe (nothing is
 * half-written) and exits 130. Inside one (a commit: backup, swap, audit
 * line) the interruption waits for the section to finish and is then
 * raised as an InterruptedError, so every file is either untouched or
 * fully written and audited, and no later file is touched. A handled
 * signal is only delivered between event-loop turns, so long work yields
 * ({@link pause}) and checks ({@link checkInterrupt}) between chunks: the
 * planner between passes and fixes, `fix` before each file and each write.
 *
 * Every other command leaves the signals to their default: the process
 * ends at once, even in the middle of reading one big session, which is a
 * single synchronous call that a handler would have to wait out (seconds,
 * after which the signal was lost and the run went on to exit 0). They
 * write nothing that a kill could tear: cache files and output files are
 * written to a temporary file renamed into place.
 */
import { InterruptedError } from './core/errors.js';

let depth = 0;
let pending = false;
/** How the executable ends on an interruption; undefined in-process (tests, a program embedding `main`), where signals stay the host's. */
let exitOnInterrupt: (() => void) | undefined;
let handling = false;

/** How the process ends on a handled interruption outside a critical section (cli.ts, which sets exit codes). */
export function onInterruptExit(exit: () => void): void {
  exitOnInterrupt = exit;
}

/**
 * From now on, Ctrl-C and SIGTERM are handled as described above instead
 * of ending the process: called by the commands that write transcripts,
 * before their first write.
 */
export function handleInterrupts(): void {
  const exit = exitOnInterrupt;
  if (handling || exit === undefined) return;
  handling = true;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => handleSigint(exit));
}

/** What a handled signal does: ends the process, or, inside a critical section, waits for its end. */
function handleSigint(exitNow: () => void): void {
  if (depth > 0) {
    pending = true;
    return;
  }
  exitNow();
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
