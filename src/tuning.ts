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
 * A third flag bounds memory: V8 lets the old generation grow up to four
 * times what survived its last full collection before it collects again,
 * and while a big session's index is built what survives keeps growing, so
 * a 1 GB session whose live heap is under 300 MB peaked at about 900 MB.
 * Growing by 30% at a time instead keeps it at about 540 MB (under the
 * 600 MB the project promises), and a tree of many sessions at 200 MB
 * instead of 260 MB. Measured with interleaved runs: no more CPU on the
 * tree, about a tenth more on a 200 MB session of small rows (more full
 * collections while its index grows).
 *
 * Set only on the V8 this was measured on: another V8 tiers differently and
 * prints an error for a flag it does not know.
 */
import v8 from 'node:v8';

/** V8 11.3's default `--interrupt-budget` (Node 20), in bytecode-size units. */
const DEFAULT_INTERRUPT_BUDGET = 66 * 1024;

/** V8 11.3's default is 920 bytes of inlined bytecode per optimised function. */
const INLINED_BYTECODE_BUDGET = 200;

/** How much the old generation may grow past what survived the last full collection (V8's default: up to 300%). */
const HEAP_GROWING_PERCENT = 30;

export function tuneV8(versions: NodeJS.ProcessVersions = process.versions): boolean {
  if (!versions.v8.startsWith('11.')) return false;
  v8.setFlagsFromString(`--interrupt-budget=${2 * DEFAULT_INTERRUPT_BUDGET}`);
  v8.setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${INLINED_BYTECODE_BUDGET}`);
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
