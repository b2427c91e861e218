/**
 * `cclint check [paths…]`: lint transcripts and report. Never writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { readWholeFile } from '../core/reader.js';
import type { FileResult } from '../core/types.js';
import { countBySeverity } from '../core/types.js';
import { CHUNKED_FORMATTERS, type FormatContext, FORMATTERS, formatterNames } from '../formatters/index.js';
import type { Io } from '../io.js';
import { useColor } from '../io.js';
import { RULES } from '../rules/index.js';
import { type Baseline, applyBaseline, buildBaseline, parseBaseline, serializeBaseline } from '../core/baseline.js';
import { describeFsError } from '../core/discovery.js';
import { PathError, UsageError } from '../core/errors.js';
import { plural } from './render.js';
import {
  checkOutputFile,
  checkWritableTarget,
  collect,
  formatContextFor,
  isFolder,
  keepAtLeast,
  lintInputs,
  note,
  parseNonNegativeInt,
  resolveInputs,
  runConfig,
  writeFileFor,
  writeReport,
} from './shared.js';
import { countText } from '../core/count-text.js';

export interface CheckOptions {
  readonly format: keyof typeof FORMATTERS;
  readonly rule: string[];
  readonly config?: string | undefined;
  readonly quiet?: boolean | undefined;
  readonly maxWarnings?: number | undefined;
  readonly color?: boolean | undefined;
  readonly verbose?: boolean | undefined;
  readonly printConfig?: string | undefined;
  readonly outputFile?: string | undefined;
  readonly baseline?: string | undefined;
  readonly baselineUpdate?: boolean | undefined;
  readonly cache?: boolean | undefined;
}

export interface CheckRun {
  readonly results: FileResult[];
  /** Paths named on the command line that could not be read at all. */
  readonly unreadableExplicit: boolean;
}

/** Discovers, lints and collects results; reports read problems on stderr. */
export async function runCheck(
  paths: readonly string[],
  options: Pick<CheckOptions, 'config' | 'rule' | 'cache'>,
  io: Io,
): Promise<CheckRun> {
  const { lint, ignore } = runConfig(io, options.config, options.rule);
  const { results, unreadableExplicit } = await lintInputs(io, resolveInputs(paths, io).inputs, {
    lint,
    discover: { groupLegacyAgents: false, ignore },
    cache: options.cache === true ? 'check' : undefined,
    verb: 'checking',
  });
  for (const r of results) {
    if (r.byteLength === 0) note(io, `${r.filePath}: empty file, nothing to check`);
    // Lines that are all blank are no content either (a line with anything else is judged).
    else if (r.recordCount === 0 && r.findings.length === 0 && r.notTranscript !== true) note(io, `${r.filePath}: only blank lines, nothing to check`);
  }
  return { results, unreadableExplicit };
}

/**
 * `--print-config <file>`: the settings a check of that file would use, as
 * JSON: the config files found (farthest first), every rule's severity, the
 * ignore patterns, and whether they leave the file out.
 */
export function printConfig(file: string, options: Pick<CheckOptions, 'config' | 'rule'>, io: Io): string {
  const { config, ignore } = runConfig(io, options.config, options.rule);
  const absolute = path.resolve(io.cwd, file);
  const rules = Object.fromEntries(
    RULES.map((r) => {
      const off = config.only !== undefined && !config.only.has(r.meta.id);
      return [r.meta.id, off ? 'off' : (config.rules.get(r.meta.id) ?? r.meta.severity)];
    }),
  );
  const printed = {
    configFiles: config.files,
    rules,
    ignorePatterns: config.ignorePatterns.map((p) => p.pattern),
    ignored: ignore?.(absolute, isFolder(absolute), path.dirname(absolute)) ?? false,
  };
  return `${JSON.stringify(printed, null, 2)}\n`;
}

/** 0 clean, 1 errors or too many warnings, 2 when a named path could not be read. */
export function checkExitCode(run: CheckRun, maxWarnings: number | undefined): number {
  if (run.unreadableExplicit) return 2;
  const { errorCount, warningCount } = countBySeverity(run.results.flatMap((r) => r.findings));
  if (errorCount > 0) return 1;
  if (maxWarnings !== undefined && warningCount > maxWarnings) return 1;
  return 0;
}

/**
 * What `--baseline <file>` asks for: to record today's findings (the file
 * does not exist yet, or `--baseline-update`), or to leave out the ones it
 * records. Read before the scan, so a bad baseline fails the run up front.
 */
export type BaselineUse =
  | { readonly kind: 'none' }
  | { readonly kind: 'record'; readonly file: string; readonly shown: string }
  | { readonly kind: 'apply'; readonly file: string; readonly shown: string; readonly baseline: Baseline };

export function openBaseline(options: Pick<CheckOptions, 'baseline' | 'baselineUpdate'>, io: Io, reads: readonly string[] = []): BaselineUse {
  if (options.baseline === undefined) {
    if (options.baselineUpdate === true) throw new UsageError('--baseline-update needs --baseline <file>');
    return { kind: 'none' };
  }
  const file = path.resolve(io.cwd, options.baseline);
  checkWritableTarget(`--baseline ${options.baseline}`, file, reads);
  if (options.baselineUpdate === true || !fs.existsSync(file)) return { kind: 'record', file, shown: options.baseline };
  let text: string;
  try {
    text = readWholeFile(file).toString('utf8');
  } catch (error) {
    throw new PathError(`--baseline ${describeFsError(error, options.baseline)}`);
  }
  return { kind: 'apply', file, shown: options.baseline, baseline: parseBaseline(text, options.baseline) };
}

/**
 * Records the findings, or leaves out the recorded ones. Either way the
 * results that remain are what the run reports and what its exit code
 * counts. Notes go to stderr, so a report on stdout stays clean.
 */
export function useBaseline(results: FileResult[], use: BaselineUse, io: Io): FileResult[] {
  if (use.kind === 'none') return results;
  const dir = path.dirname(use.file);
  if (use.kind === 'record') {
    const baseline = buildBaseline(results, io.cwd, dir);
    writeFileFor(`--baseline ${use.shown}`, use.file, serializeBaseline(baseline));
    const findings = results.reduce((n, r) => n + r.findings.length, 0);
    note(
      io,
      `baseline ${use.shown}: recorded ${plural(findings, 'finding')} in ${plural(Object.keys(baseline.files).length, 'file')}; ` +
        'runs with this --baseline report only findings it does not record',
    );
    return results.map((r) => (r.findings.length === 0 ? r : { ...r, findings: [], ...countBySeverity([]) }));
  }
  const outcome = applyBaseline(results, use.baseline, io.cwd, dir);
  if (outcome.suppressed > 0 || outcome.unmatched > 0) {
    note(
      io,
      `baseline ${use.shown}: ${plural(outcome.suppressed, 'recorded finding')} left out` +
        (outcome.unmatched > 0 ? `; ${plural(outcome.unmatched, 'recorded finding')} no longer found (--baseline-update forgets them)` : ''),
    );
  }
  return outcome.results;
}

/** The pieces, then one more. */
function* followedBy(pieces: Iterable<string>, last: string): Generator<string> {
  yield* pieces;
  yield last;
}

export function checkCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('check')
    .description('lint transcripts and report what each break costs on resume; never writes anything')
    .argument('[paths...]', 'session files, project folders or a projects root (default: the local Claude Code projects folder)')
    .addOption(new Option('-f, --format <name>', 'output format').choices(formatterNames).default('stylish'))
    .option('--rule <id[=severity]>', 'run only this rule (repeatable); with =severity also set its level', collect, [])
    .option('-c, --config <file>', 'use this config file instead of the .cclintrc.json / cclint.config.json found from here upward')
    .option('--print-config <file>', 'print the settings a check of <file> would use, as JSON, and check nothing')
    .option('-q, --quiet', 'report errors only (the exit code still counts warnings for --max-warnings)')
    .option('--verbose', 'stylish: also list info findings (they are always in json, sarif and github output)')
    .option('--max-warnings <n>', 'exit 1 when there are more than n warnings', parseNonNegativeInt)
    .option('--no-color', 'no colour, even on a terminal (NO_COLOR is honoured too)')
    .option('-o, --output-file <file>', 'write the report to this file instead of stdout (folders are created)')
    .option('--baseline <file>', 'report only findings this file does not record; records today\'s findings when it does not exist')
    .option('--cache', 'remember results under $CCLINT_HOME/cache; a session whose files did not change is not read again, and one of 64 MB or more that only grew is read from where it ended')
    .option('--baseline-update', 'record today\'s findings in the --baseline file again (forgets the ones no longer found)')
    .addHelpText(
      'after',
      `
Examples:
  cclint check                                  every session under ~/.claude/projects
  cclint check ~/.claude/projects/-home-me-app  one project folder
  cclint check --format json session.jsonl      machine-readable, with resume fidelity and score
  cclint check --rule phantom-parent --quiet    one rule, errors only
  cclint check --format sarif -o cclint.sarif   for GitHub code scanning
  cclint check --baseline cclint-baseline.json  first run records today's findings; later runs fail only on new ones
  cclint check --cache                          later runs read only the sessions that changed

Exit codes: 0 no errors, 1 errors (or more warnings than --max-warnings), 2 cclint could not do its job.`,
    )
    .action(async (paths: string[], options: CheckOptions) => {
      if (options.printConfig !== undefined) {
        io.stdout.write(printConfig(options.printConfig, options, io));
        setExit(0);
        return;
      }
      const reads = paths.map((p) => path.resolve(io.cwd, p));
      checkOutputFile(io, options.outputFile, paths);
      const baseline = openBaseline(options, io, reads);
      const checked = await runCheck(paths, options, io);
      const run = { ...checked, results: useBaseline(checked.results, baseline, io) };
      // Info findings (every typed prompt for string-content, say) would bury
      // the errors in the human format; they are counted and listed on request.
      const hideInfo = options.format === 'stylish' && options.verbose !== true;
      const shown =
        options.quiet === true ? keepAtLeast(run.results, 'error') : hideInfo ? keepAtLeast(run.results, 'warning') : run.results;
      const hiddenInfo = hideInfo && options.quiet !== true ? countBySeverity(run.results.flatMap((r) => r.findings)).infoCount : 0;
      const { warningCount } = countBySeverity(run.results.flatMap((r) => r.findings));
      const chunked = CHUNKED_FORMATTERS[options.format];
      const formatter = chunked ?? ((results: typeof shown, context: FormatContext) => [FORMATTERS[options.format](results, context)]);
      const output = formatter(
        shown,
        formatContextFor(io, options.format, options.outputFile === undefined && useColor(io.stdout, io.env, options.color), {
          unreadableInputs: run.unreadableExplicit,
          maxWarningsExceeded:
            options.maxWarnings !== undefined && warningCount > options.maxWarnings
              ? { maxWarnings: options.maxWarnings, foundWarnings: warningCount }
              : undefined,
        }),
      );
      const hint = hiddenInfo > 0 ? `  ${countText(hiddenInfo)} info finding(s) not listed; --verbose lists them\n` : '';
      writeReport(io, followedBy(output, hint), options.outputFile);
      setExit(checkExitCode(run, options.maxWarnings));
    });
}
