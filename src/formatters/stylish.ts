/**
 * The default, human-facing report, laid out like ESLint's `stylish`: an
 * underlined path per file with findings, one aligned row per finding, what
 * resume loses from the file, then a summary with the fixable counts.
 * Paths, messages (filled with transcript values) and uuids are escaped for
 * the terminal here, at render time, so the results keep exact values for
 * the machine formats.
 */
import { styleText } from 'node:util';
import type { FileResult, Finding, ResumeSummary, Severity } from '../core/types.js';
import { escapeForTerminal } from '../escape.js';
import type { FormatContext, Formatter } from './types.js';
import { countOf, problemsPhrase, totalsOf } from './summary.js';
import { columns, pad } from './text.js';
import { countText } from '../core/count-text.js';

type Style = 'red' | 'yellow' | 'blue' | 'green' | 'dim' | 'bold' | 'underline';

/** Styles text when colour is allowed; otherwise returns it untouched, so no escape code ever leaks. */
type Paint = (style: Style, text: string) => string;

function painter(color: boolean): Paint {
  // validateStream: false keeps the formatter pure; the caller already decided about the TTY.
  return color ? (style, text) => styleText(style, text, { validateStream: false }) : (_style, text) => text;
}

const SEVERITY_STYLE: Readonly<Record<Severity, Style>> = { error: 'red', warning: 'yellow', info: 'blue' };

/** ESLint drops a trailing period from messages; so do we. */
function stripPeriod(message: string): string {
  return message.replace(/([^ .])\.$/u, '$1');
}

/** Rounded down to one decimal, so a file that loses anything never reads as 100%. */
function percent(resume: ResumeSummary): string {
  const permille = resume.total > 0 ? Math.floor((resume.loaded * 1000) / resume.total) : Math.floor(resume.fidelity * 1000);
  return `${(permille / 10).toFixed(1)}%`;
}

function resumeLine(result: FileResult): string | undefined {
  const resume = result.resume;
  if (resume === undefined || resume.fidelity >= 1) return undefined;
  const score = result.score === undefined ? '' : ` · score ${result.score.toFixed(2)}`;
  return (
    `  resume loads ${countText(resume.loaded)} of ${countText(resume.total)} messages ` +
    `(${percent(resume)})${score}`
  );
}

/** Which API rules the request resume sends breaks: every prompt after `claude --resume` answers 400. */
function apiLine(result: FileResult): string | undefined {
  const resume = result.resume;
  if (resume?.apiValid !== false) return undefined;
  const rules = [...new Set((resume.apiViolations ?? []).map((v) => v.rule))];
  return `  resumed request fails at the API (400): ${rules.join(', ')}`;
}

function fileBlock(result: FileResult, paint: Paint): string[] {
  const rows = result.findings.map((f: Finding) => ({
    line: String(f.line),
    severity: f.severity,
    message: escapeForTerminal(stripPeriod(f.message)),
    ruleId: f.ruleId,
    uuid: f.uuid === undefined ? undefined : escapeForTerminal(f.uuid.slice(0, 8)),
  }));
  const width = (pick: (r: (typeof rows)[number]) => string): number =>
    rows.reduce((max, r) => Math.max(max, columns(pick(r))), 0);
  const lineWidth = width((r) => r.line);
  const severityWidth = width((r) => r.severity);
  const messageWidth = width((r) => r.message);
  const ruleWidth = width((r) => r.ruleId);

  const out = [paint('underline', escapeForTerminal(result.filePath))];
  for (const r of rows) {
    let row =
      `  ${paint('dim', r.line.padStart(lineWidth))}` +
      `  ${paint(SEVERITY_STYLE[r.severity], r.severity)}${' '.repeat(severityWidth - r.severity.length)}` +
      `  ${pad(r.message, messageWidth)}`;
    row +=
      r.uuid === undefined
        ? `  ${paint('dim', r.ruleId)}`
        : `  ${paint('dim', r.ruleId)}${' '.repeat(ruleWidth - r.ruleId.length)}  ${paint('dim', r.uuid)}`;
    out.push(row);
  }
  const resume = resumeLine(result);
  if (resume !== undefined) out.push(paint('dim', resume));
  const api = apiLine(result);
  if (api !== undefined) out.push(paint('dim', api));
  return out;
}

/**
 * `2 fixable with `cclint fix` (1 more with `cclint fix --unsafe`)`: only
 * what those commands will apply. A fix of an opt-in rule (`meta.optInFix`)
 * applies only when the rule is named, so it is counted under the command
 * that names it; display-only fixes are never counted.
 */
function fixableLine(results: readonly FileResult[], rulesMeta: FormatContext['rulesMeta']): string | undefined {
  let safe = 0;
  let unsafe = 0;
  const optIn = new Map<string, number>();
  for (const r of results) {
    for (const f of r.findings) {
      const applicability = f.fix?.applicability;
      if (applicability !== 'safe' && applicability !== 'unsafe') continue;
      if (rulesMeta.get(f.ruleId)?.optInFix === true) {
        const how = `\`cclint fix ${applicability === 'unsafe' ? '--unsafe ' : ''}--rule ${f.ruleId}\``;
        optIn.set(how, (optIn.get(how) ?? 0) + 1);
      }
      else if (applicability === 'safe') safe++;
      else unsafe++;
    }
  }
  const parts: Array<[number, string]> = [];
  if (safe > 0) parts.push([safe, '`cclint fix`']);
  if (unsafe > 0) parts.push([unsafe, '`cclint fix --unsafe`']);
  for (const [how, count] of [...optIn].sort(([a], [b]) => a.localeCompare(b))) parts.push([count, how]);
  const [first, ...more] = parts;
  if (first === undefined) return undefined;
  const rest = more.map(([count, how]) => `${countText(count)} more with ${how}`).join(', ');
  return `  ${countText(first[0])} fixable with ${first[1]}${rest === '' ? '' : ` (${rest})`}`;
}

/** ESLint's `stylish` for transcripts. Ends with a newline. */
export const stylish: Formatter = (results: readonly FileResult[], context: FormatContext): string => {
  // Nothing was checked because what was named could not be read: a green
  // "No problems in 0 files" under that error would read as a pass.
  if (results.length === 0 && context.unreadableInputs === true) return '';
  const paint = painter(context.color);
  const blocks = results.filter((r) => r.findings.length > 0).map((r) => fileBlock(r, paint).join('\n'));
  const totals = totalsOf(results);
  const summary: string[] = [];
  if (totals.problems === 0) {
    summary.push(paint('green', `✔ No problems in ${countOf(totals.files, 'file')}`));
  } else {
    const style: Style = totals.errorCount > 0 ? 'red' : totals.warningCount > 0 ? 'yellow' : 'blue';
    summary.push(paint('bold', paint(style, `✖ ${problemsPhrase(totals)}`)));
    const fixable = fixableLine(results, context.rulesMeta);
    if (fixable !== undefined) summary.push(fixable);
  }
  blocks.push(summary.join('\n'));
  if (context.maxWarningsExceeded !== undefined) {
    blocks.push(
      paint('red', `cclint found too many warnings (maximum: ${countText(context.maxWarningsExceeded.maxWarnings)}).`),
    );
  }
  return `${blocks.join('\n\n')}\n`;
};
