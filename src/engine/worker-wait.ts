/**
 * Waiting, on a thread that cannot return to its event loop (the linter is
 * synchronous), for a worker that reports through shared memory: a state
 * slot it changes when it is done, and a heartbeat slot it counts up as it
 * reads, so that a worker that could not start, or whose disk hangs, is
 * given up on rather than waited for without end.
 */

/** A worker that has not counted up its heartbeat for this long is given up on. */
export const STALLED_MS = 10_000;

/**
 * Waits while `control[stateSlot]` is `state`; returns the state it moved
 * to, or undefined when the worker's heartbeat (`control[beatSlot]`) stood
 * still for {@link STALLED_MS}.
 */
export function waitWhile(control: Int32Array, stateSlot: number, beatSlot: number, state: number): number | undefined {
  let beat = Atomics.load(control, beatSlot);
  let since = Date.now();
  while (Atomics.load(control, stateSlot) === state) {
    Atomics.wait(control, stateSlot, state, 200);
    const now = Atomics.load(control, beatSlot);
    if (now !== beat) {
      beat = now;
      since = Date.now();
    } else if (Date.now() - since > STALLED_MS) {
      return undefined;
    }
  }
  return Atomics.load(control, stateSlot);
}
