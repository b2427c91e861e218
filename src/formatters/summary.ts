/**
 * Counting and wording shared by the human-facing formatters, so stylish and
 * github agree on totals and plurals.
 */
import type { FileResult } from '../core/types.js';
import { countText } from '../core/count-text.js';

export interface Totals {
  readonly files: number;
  readonly errorCount: number;
  readonly warningCount: number;
  readonly infoCount: number;
  readonly problems: number;
}

/** Sums the per-file counts (the results' own counts, which `--quiet` has already narrowed). */
export function totalsOf(results: readonly FileResult[]): Totals {
  let errorCount = 0;
  let warningCount = 0;
  let infoCount = 0;
  for (const r of results) {
    errorCount += r.errorCount;
    warningCount += r.warningCount;
    infoCount += r.infoCount;
  }
  return { files: results.length, errorCount, warningCount, infoCount, problems: errorCount + warningCount + infoCount };
}

/** `1 error`, `1,204 warnings`; `info` has no plural. */
export function countOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${countText(n)} ${n === 1 ? singular : plural}`;
}

/** `3 problems (2 errors, 1 warning, 0 info)`. */
export function problemsPhrase(t: Totals): string {
  return (
    `${countOf(t.problems, 'problem')} ` +
    `(${countOf(t.errorCount, 'error')}, ${countOf(t.warningCount, 'warning')}, ${countOf(t.infoCount, 'info', 'info')})`
  );
}
