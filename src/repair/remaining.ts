/**
 * The findings a plan leaves, in a module of its own: `rename` needs it on
 * every run, and the planner's module loads the record schemas (zod), which
 * cost every command about 70 ms of start-up when `rename` imported it.
 */
import type { Finding } from '../core/types.js';
import type { FilePlan } from './types.js';

/**
 * What a plan keeps of the findings left: those above info, without their
 * fixes (whose closures hold the index), and how many infos.
 */
export function remainingOf(findings: readonly Finding[]): Pick<FilePlan, 'remaining' | 'remainingInfo'> {
  const remaining: Finding[] = [];
  let remainingInfo = 0;
  for (const f of findings) {
    if (f.severity === 'info') remainingInfo++;
    else if (f.fix === undefined) remaining.push(f);
    else {
      const { fix: _fix, ...rest } = f;
      remaining.push(rest);
    }
  }
  return { remaining, remainingInfo };
}
