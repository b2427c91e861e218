/**
 * `--format github`: GitHub Actions workflow commands, one annotation per
 * finding, folded per file. GitHub caps the annotations a step shows, so the
 * output always ends with a plain summary line as well.
 *
 * Two escapes apply, in this order: terminal controls become visible (the
 * Actions log renders ANSI sequences, so an ESC from a transcript would
 * restyle or hide log text), then the workflow-command encoding, which turns
 * `%`, CR and LF into `%25`, `%0D`, `%0A` (and `:`, `,` in properties), so no
 * value can end a command early or start a new one.
 */
import type { FileResult, Severity } from '../core/types.js';
import { escapeForTerminal } from '../escape.js';
import type { FormatContext, Formatter } from './types.js';
import { countOf, problemsPhrase, totalsOf } from './summary.js';
import { countText } from '../core/count-text.js';

const COMMAND: Readonly<Record<Severity, 'error' | 'warning' | 'notice'>> = {
  error: 'error',
  warning: 'warning',
  info: 'notice',
};

/** Escapes a command's message: `%`, CR and LF (`%` first, so escapes are not re-escaped). */
export function escapeData(text: string): string {
  return text.replace(/%/gu, '%25').replace(/\r/gu, '%0D').replace(/\n/gu, '%0A');
}

/** Escapes a property value: as {@link escapeData}, plus `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/gu, '%3A').replace(/,/gu, '%2C');
}

/** A message: several lines are fine in an annotation, as %0A; controls are not. */
function messageOf(text: string): string {
  return escapeData(escapeForTerminal(text, { multiline: true }));
}

export const github: Formatter = (results: readonly FileResult[], context: FormatContext): string => {
  const lines: string[] = [];
  for (const result of results) {
    if (result.findings.length === 0) continue;
    // A line break in a file name stays one, encoded as %0A like any other, so
    // the annotation names the file GitHub finds (shown as \n, it named none).
    const shownPath = escapeForTerminal(result.filePath, { multiline: true });
    lines.push(`::group::${escapeData(shownPath)}`);
    const file = escapeProperty(shownPath);
    for (const f of result.findings) {
      const title = escapeProperty(`cclint(${f.ruleId})`);
      lines.push(`::${COMMAND[f.severity]} file=${file},line=${f.line},title=${title}::${messageOf(f.message)}`);
    }
    lines.push('::endgroup::');
  }
  const totals = totalsOf(results);
  lines.push(`cclint: ${problemsPhrase(totals)} in ${countOf(totals.files, 'file')}`);
  if (context.maxWarningsExceeded !== undefined) {
    lines.push(
      `cclint found too many warnings (maximum: ${countText(context.maxWarningsExceeded.maxWarnings)}).`,
    );
  }
  return `${lines.join('\n')}\n`;
};
