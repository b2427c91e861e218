/**
 * Process-wide V8 tuning, applied by the executable before anything else
 * loads (library use and tests are left alone).
 *
 * `check` runs a few dozen rule and resume-model functions once per session,
 * over thousands of sessions. Under V8's default tiering many of them become
 * just hot enough to be optimised, and the optimising compiler, which runs
 * again in every worker thread, then spends more CPU on them than the
 * optimised code saves: on the benchmark tree it was about a quarter of all
 * CPU time. Two flags cut that cost:
 *
 * - twice the default interrupt budget, so that only truly hot functions are
 *   optimised;
 * - a smaller inlining budget, so that each optimisation compiles a smaller
 *   graph (the hot path is in `JSON.parse`, not in the inlined helpers).
 *
 * Measured with interleaved runs on Node 20: each about 10% less wall time
 * on a tree of many sessions, and no slower on a single 700 MB session.
 *
 * A third flag trades memory for time: V8 lets the old generation grow up
 * to four times what survived its last full collection before it collects
 * again, and while a big session's index is built what survives keeps
 * growing, so a 1 GB session whose live heap is under 300 MB peaked at
 * about 900 MB. Growing by 60% at a time keeps a tree of many sessions at
 * about 210 MB (260 MB by default) and a 724 MB session at 350 MB; a run
 * that may hold a bigger index, or a plan beside one, grows by 30% at a
 * time ({@link boundHeapGrowth}: `fix`, `restore`, and any run once it has
 * read {@link BIG_INPUT_BYTES} of one file), which keeps a 1 GB session's
 * `check` and `fix` under the 600 MB the project promises. Measured on the
 * 2-core machine of the README's bench: growing by 30% instead of 60% costs
 * a 724 MB session's `check` 8% more time and a 1 GB session's 20%; growing
 * by 60% costs `fix --dry-run` of a 1 GB session 609 MB instead of 543 MB.
 *
 * Set only on the V8 this was measured on: another V8 tiers differently and
 * prints an error for a flag it does not know.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

/** V8 11.3's default `--interrupt-budget` (Node 20), in bytecode-size units. */
const DEFAULT_INTERRUPT_BUDGET = 66 * 1024;

/** V8 11.3's default is 920 bytes of inlined bytecode per optimised function. */
const INLINED_BYTECODE_BUDGET = 200;

/** How much the old generation may grow past what survived the last full collection (V8's default: up to 300%). */
const HEAP_GROWING_PERCENT = 60;

/** The same, for runs that may hold the index of a session of 1 GB or more, or a plan beside it. */
const BOUNDED_HEAP_GROWING_PERCENT = 30;

/** A file this big read whole means an index big enough that memory, not time, is what to save. */
export const BIG_INPUT_BYTES = 768 * 1024 * 1024;

let tuned = false;
let bounded = false;

export function tuneV8(versions: NodeJS.ProcessVersions = process.versions): boolean {
  if (!versions.v8.startsWith('11.')) return false;
  v8.setFlagsFromString(`--interrupt-budget=${2 * DEFAULT_INTERRUPT_BUDGET}`);
  v8.setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${INLINED_BYTECODE_BUDGET}`);
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  tuned = true;
  return true;
}

/**
 * From now on, the heap grows by 30% at a time (V8 reads the flag at each
 * full collection). Only where {@link tuneV8} tuned this process: library
 * use and tests are left alone. Returns whether it changed anything.
 */
export function boundHeapGrowth(): boolean {
  if (!tuned || bounded) return false;
  v8.setFlagsFromString(`--heap-growing-percent=${BOUNDED_HEAP_GROWING_PERCENT}`);
  bounded = true;
  return true;
}

/** Whether this thread's process was tuned: a worker thread is told by its parent ({@link adoptTuning}). */
export function isTuned(): boolean {
  return tuned;
}

/**
 * In a worker thread: the flags are the process's, set by the main thread;
 * with this, {@link boundHeapGrowth} in the worker acts on them too.
 */
export function adoptTuning(tunedInParent: boolean): void {
  if (tunedInParent) tuned = true;
}

/** Whether {@link boundHeapGrowth} has bounded this process's heap. */
export function heapGrowthBounded(): boolean {
  return bounded;
}

/** Inputs this big get a full collection between the steps of their check and repair in a bounded run. */
export const COLLECTED_INPUT_BYTES = 256 * 1024 * 1024;

let collector: (() => void) | undefined;

/**
 * In a run bounded by memory ({@link boundHeapGrowth}), collects garbage
 * now when the input being worked on is {@link COLLECTED_INPUT_BYTES} or
 * more; elsewhere does nothing. Called where a big step has just let go of
 * most of what it made: after a session's index is built, between its
 * resume readings, after its rules, and before the planner indexes the next
 * text of a fix.
 *
 * Why: the heap's growth factor bounds what V8 keeps between collections,
 * but not what it allocates while it marks (marking runs alongside the
 * program, and what is allocated meanwhile survives that collection). On a
 * 1 GB session of tool rows whose live heap is about 300 MB, the models'
 * garbage made while a collection of the index was marking took `check` to
 * 650-680 MB, and a fix's next text, indexed while the previous index
 * waited for the collector, to 750 MB. A full collection at those points
 * costs 0.1-0.3 s each on such a session and brings `check` to 540-552 MB
 * and `fix` to 552-567 MB.
 */
export function collectGarbage(inputBytes: number): boolean {
  if (!bounded || inputBytes < COLLECTED_INPUT_BYTES) return false;
  if (collector === undefined) {
    // A context made once the flag is set has V8's collector as its global `gc` (this one's global stays as it was).
    v8.setFlagsFromString('--expose-gc');
    collector = vm.runInNewContext('gc') as () => void;
  }
  collector();
  return true;
}
