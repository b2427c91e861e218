/**
 * `cclint fix [paths…]`: plan repairs, show them, ask, then write each file
 * atomically with a backup and an audit line.
 *
 * Layers: the planner (src/repair/plan.ts) decides the new bytes, this
 * command shows and asks, and the writer (src/repair/write.ts) is the only
 * code that writes a transcript.
 */
import fs from 'node:fs';
import path from 'node:path';
import { styleText } from 'node:util';
import { Command, Option } from 'commander';
import { escapeForTerminal, terminalSafeJson } from '../escape.js';
import { type Discovery, describeFsError } from '../core/discovery.js';
import { type ByteSource, fileSource } from '../core/reader.js';
import { CclintError, InterruptedError, UsageError } from '../core/errors.js';
import { indexFile, linkGroup, type LintOptions, ProjectRegistry } from '../engine/linter.js';
import { lintGroups } from '../engine/parallel.js';
import { resumeModel } from '../core/resume.js';
import type { Applicability, FileResult, Finding } from '../core/types.js';
import { stripThinkingFinding } from '../rules/thinking-signature.js';
import { RULES_BY_ID } from '../rules/index.js';
import { assertKnownRule } from '../core/config.js';
import { countBySeverity } from '../core/types.js';
import { checkInterrupt, critical, handleInterrupts, pause } from '../interrupt.js';
import type { Io } from '../io.js';
import { useColor } from '../io.js';
import { planReport } from '../repair/plan-report.js';
import type { Decider, FilePlan } from '../repair/types.js';
import { interactivePolicy } from './fix-prompt.js';
import {
  checkOutputFile,
  collect,
  discoverInputs,
  formatContextFor,
  keepAtLeast,
  parseNonNegativeInt,
  resolveInputs,
  runConfig,
  sessionProgress,
  undoCommand,
  writeOptions,
  writeReport,
} from './shared.js';
import { FORMATTERS } from '../formatters/index.js';
import { jsonReport } from '../formatters/json.js';
import { countText } from '../core/count-text.js';

interface FixOptions {
  readonly dryRun?: boolean | undefined;
  readonly yes?: boolean | undefined;
  readonly unsafe?: boolean | undefined;
  readonly format: 'stylish' | 'json' | 'sarif' | 'github';
  readonly maxWarnings?: number | undefined;
  readonly rule: string[];
  readonly config?: string | undefined;
  readonly backupDir?: string | undefined;
  readonly auditLog?: string | undefined;
  readonly force?: boolean | undefined;
  readonly stripThinking?: boolean | undefined;
  readonly color?: boolean | undefined;
  readonly quiet?: boolean | undefined;
  readonly outputFile?: string | undefined;
}

/**
 * `--strip-thinking` rewrites every response of a session, so it takes the
 * session files by name: never the default projects root, never a folder.
 */
function checkStripTargets(paths: readonly string[], cwd: string): void {
  if (paths.length === 0) {
    throw new UsageError('--strip-thinking needs the session file(s) to strip: cclint fix --strip-thinking <session.jsonl>');
  }
  for (const p of paths) {
    let folder = false;
    try {
      folder = fs.statSync(path.resolve(cwd, p)).isDirectory();
    } catch {
      // A path that cannot be read is reported as for any fix.
    }
    if (folder) throw new UsageError(`--strip-thinking takes session files, not folders: ${p} is a folder`);
  }
}

function stripThinkingRequest(index: Parameters<typeof stripThinkingFinding>[0]): readonly Finding[] {
  const finding = stripThinkingFinding(index, resumeModel(index));
  return finding === undefined ? [] : [finding];
}

/** What `check` would report of a planned file once its plan is written (info findings counted, not listed). */
function resultAfter(plan: FilePlan): FileResult {
  const base = {
    filePath: plan.file.displayPath,
    sessionId: plan.sessionId ?? plan.file.layoutSessionId,
    findings: plan.remaining,
    ...countBySeverity(plan.remaining),
    infoCount: plan.remainingInfo,
    recordCount: 0,
  };
  // As check reports it: no conversation to measure.
  if (isForeign(plan)) return { ...base, notTranscript: true };
  return { ...base, resume: plan.resumeAfter, score: plan.scoreAfter };
}

const NOT_A_TRANSCRIPT = 'not a transcript: no line of it is a Claude Code transcript row, so cclint does not change it';

/**
 * The files of a run that a plan would change nothing in, each with what
 * `check` reports of it: every file is linted first as `check` lints it
 * (on every core when the input is big), and only the files with a fix the
 * policy could offer ({@link offersFix}) are planned, one at a time. On a
 * projects folder where a few sessions have something to fix, that is
 * most of the run's reading done in parallel instead of in turn. A file
 * that could not be read, or is not a transcript, is not in the map: it is
 * planned, and reported, as before. `offered` is the planner's own test
 * ({@link offersFix} in plan.ts), handed in because the planner's modules
 * load only once `fix` runs.
 */
async function nothingToPlan(
  io: Io,
  discovery: Discovery,
  lint: LintOptions,
  offered: (finding: Finding) => boolean,
  show: boolean,
): Promise<Map<string, FileResult>> {
  const progress = sessionProgress(io, 'checking', discovery.groups.length, show);
  const run = await lintGroups(discovery.groups, discovery.projectFiles, lint, (done) => progress.step(done), { env: io.env });
  progress.clear();
  const settled = new Map<string, FileResult>();
  for (const result of run.results) {
    if (result.notTranscript === true || result.findings.some((f) => f.ruleId === 'not-a-transcript' || offered(f))) continue;
    settled.set(result.filePath, result);
  }
  return settled;
}

/** A file `fix` leaves alone because no line of it is a transcript row. */
function isForeign(plan: FilePlan): boolean {
  return plan.remaining.some((f) => f.ruleId === 'not-a-transcript');
}

function summaryLine(plan: FilePlan, verb: string): string {
  const r = plan.resumeBefore;
  const a = plan.resumeAfter;
  const resume =
    a.loaded !== r.loaded ? `; resume ${verb === 'fixed' ? 'now loads' : 'would load'} ${a.loaded} of ${a.total} messages (was ${r.loaded})` : '';
  const more = plan.cutShortAfter === undefined ? '' : `; planning stopped after ${plan.cutShortAfter} passes, \`cclint fix\` again may apply more`;
  return escapeForTerminal(`${verb} ${plan.file.displayPath}: ${plan.applied.length} fix(es)${resume}${more}`);
}

export function fixCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('fix')
    .description('repair transcripts: plan fixes, show them, ask, then write atomically with a backup and an audit line')
    .argument('[paths...]', 'session files, project folders or a projects root (default: the local Claude Code projects folder)')
    .option('--dry-run', 'print the unified diff of what would change and write nothing')
    .option('-y, --yes', 'apply without asking what the policy allows (safe fixes; unsafe too with --unsafe)')
    .option('--unsafe', 'also apply fixes marked unsafe (heuristic relinks, new uuids, content rewrites)')
    .addOption(
      new Option('-f, --format <name>', 'dry-run output: stylish (the diff); json, sarif, github (what check would report once fixed; json adds the plan)')
        .choices(['stylish', 'json', 'sarif', 'github'])
        .default('stylish'),
    )
    .option('--rule <id>', 'only fix what this rule finds (repeatable)', collect, [])
    .option('--max-warnings <n>', 'exit 1 when more than n warnings remain after fixing (as check counts them)', parseNonNegativeInt)
    .option(
      '-q, --quiet',
      'report errors only: no receipt per fixed file (the audit log keeps it) and no summary once nothing at error level is left; the exit code still counts warnings for --max-warnings',
    )
    .option('-o, --output-file <file>', 'with --dry-run: write the report (the diff, or the --format output) to this file instead of stdout')
    .option('-c, --config <file>', 'use this config file instead of the .cclintrc.json / cclint.config.json found from here upward')
    .option('--backup-dir <dir>', 'where backups go (default: $CCLINT_HOME/backups, never inside the projects folder)')
    .option('--audit-log <file>', 'the append-only audit log (default: $CCLINT_HOME/audit.jsonl)')
    .option('--force', 'write even when the session looks active (changed in the last 60 s or held by a running Claude Code)')
    .option(
      '--strip-thinking',
      'also drop every thinking block of the conversation resume sends (unsafe; for a session stuck on API Error 400 about thinking; session files only)',
    )
    .option('--no-color', 'no colour, even on a terminal')
    .addHelpText(
      'after',
      `
Examples:
  cclint fix --dry-run session.jsonl        review the diff; nothing is written
  cclint fix --dry-run -f json -o plan.json  the plan and what check would say once fixed, as a file
  cclint fix --yes --quiet ~/.claude/projects  for a hook: prints only what is left at error level
  cclint fix session.jsonl                  walk the fixes and answer y/n/a/d/q for each
  cclint fix --yes ~/.claude/projects        apply every safe fix, no questions
  cclint fix --yes --unsafe --force x.jsonl  everything the planner accepts, even on a live session
  cclint fix --strip-thinking x.jsonl       unwedge a session stuck on "API Error: 400 … thinking … cannot be
                                            modified" or "Invalid signature in thinking block"
  cclint restore <audit-id>                 undo a fix (ids are in $CCLINT_HOME/audit.jsonl)

Every write: journal, backup (mode 0600) under $CCLINT_HOME/backups, re-hash to catch concurrent
changes, atomic rename carrying lines a live session appends meanwhile, one audit line. A killed run is
completed by the next fix or restore. A file that cannot be done is skipped with its reason.
A fix is dropped when it would add a finding (a tool call or result whose partner the break had
already destroyed may show up as a warning once history is back), would stop resume loading a message
of the conversation it loads today, or would bring in an abandoned attempt.
Exit codes: 0 nothing at error level remains (and no more warnings than --max-warnings), 1 errors remain (or more warnings), 2 cclint could not do its job, 130 interrupted.`,
    )
    .action(async (paths: string[], options: FixOptions) => {
      // From here Ctrl-C stops between files and never inside a write (a dry run writes nothing: it stops at once).
      if (options.dryRun !== true) handleInterrupts();
      // Only these rules fix, but every rule still lints (the gate compares all findings): named ids are checked first.
      for (const id of options.rule) {
        const named = id.split('=')[0] as string;
        if (named !== id && RULES_BY_ID.has(named)) {
          throw new UsageError(`--rule ${id}: fix takes a rule id without a severity (--rule ${named}); severities are for check --rule and the config`);
        }
        assertKnownRule(id, id, new Set(RULES_BY_ID.keys()));
      }
      const interactive = options.dryRun !== true && options.yes !== true;
      if (options.stripThinking === true) checkStripTargets(paths, io.cwd);
      if (options.dryRun !== true && options.format !== 'stylish') {
        throw new UsageError(
          `--format ${options.format} goes with --dry-run (what check would report once fixed); a fix that writes prints what it wrote, and its record is the audit log (cclint restore --list --format json)`,
        );
      }
      if (options.outputFile !== undefined) {
        if (options.dryRun !== true) {
          throw new UsageError(
            '--output-file goes with --dry-run: a fix writes the sessions themselves, and its record is the audit log (cclint restore --list)',
          );
        }
        checkOutputFile(io, options.outputFile, paths);
      }
      if (interactive && !(io.stdinIsTTY && io.stdout.isTTY) && io.ask === undefined) {
        throw new UsageError('fix needs a terminal to ask on; pass --yes to apply safe fixes without asking, or --dry-run to review them');
      }
      // The report goes to stdout as it comes, or (--output-file) to the file at the end.
      const reportPieces: string[] = [];
      const say = (text: string): void => {
        if (options.outputFile === undefined) io.stdout.write(text);
        else reportPieces.push(text);
      };
      const quiet = options.quiet === true;
      const color = options.outputFile === undefined && useColor(io.stdout, io.env, options.color);
      // The write path loads only when fix runs, so `check` starts fast.
      const diff = await import('../repair/diff.js');
      const { colorDiff, rewritePatch, renderPatch } = diff;
      const { offersFix, optInRuleIds, planFile } = await import('../repair/plan.js');
      const { commitPlan, liveRefusalNow, recoverJournals } = await import('../repair/write.js');
      const { nodeFs } = await import('../repair/fs-port.js');
      if (options.dryRun !== true) {
        // Complete what a killed run left: a fix that landed gets its audit line (so it can be undone).
        const recovered = recoverJournals({ fs: nodeFs(), env: io.env, cwd: io.cwd });
        for (const id of recovered.audited) io.stdout.write(`completed the audit of an interrupted fix; undo with: cclint restore ${id}\n`);
      }
      const { lint, ignore } = runConfig(io, options.config, []);
      const { inputs } = resolveInputs(paths, io);
      const { discovery, unreadableExplicit } = discoverInputs(io, inputs, { ignore });
      let failed = unreadableExplicit;
      // Interactive runs offer unsafe fixes too, marked, declined by Enter.
      const allow = new Set<Applicability>(options.unsafe === true || interactive ? ['safe', 'unsafe'] : ['safe']);
      const only = options.rule.length > 0 ? new Set(options.rule) : undefined;
      const prompts = interactive ? interactivePolicy(io, color, diff) : undefined;
      const registry = new ProjectRegistry(discovery.projectFiles);
      // Every file planned, in order, the ones left alone as not transcripts too (what the machine formats report).
      const reported: FilePlan[] = [];
      const notWritten = new Set<FilePlan>();
      const skippedFiles: Array<{ readonly shown: string; readonly reason: string }> = [];
      const skipFile = (shown: string, reason: string): void => {
        const line = escapeForTerminal(reason.replace(/\s+/g, ' '));
        skippedFiles.push({ shown, reason: line });
        progress.clear();
        io.stderr.write(`cclint: skipped ${escapeForTerminal(shown)}: ${line}\n`);
        failed = true;
      };
      const fsPort = nodeFs();
      const decidedBy: Decider = options.yes === true ? 'yes' : 'interactive';
      let errorsLeft = 0;
      let warningsLeft = 0;
      let hiddenUnsafe = 0;
      const progress = sessionProgress(io, options.dryRun === true ? 'planning' : 'fixing', discovery.groups.length, !interactive);
      let seen = 0;
      // The machine formats report every file's plan, and --strip-thinking asks for a fix no rule
      // reports: then every file is planned. One file alone is planned at once (a check first would read it twice).
      const total = discovery.groups.reduce((n, g) => n + g.files.length, 0);
      const optIn = optInRuleIds(lint);
      const settled =
        options.format === 'stylish' && options.stripThinking !== true && total > 1
          ? await nothingToPlan(io, discovery, lint, (f) => offersFix(f, optIn, only), !interactive)
          : new Map<string, FileResult>();
      /** Transcripts left unplanned, with nothing to fix: counted with the plans. */
      let unplanned = 0;
      const leftUnplanned = (file: { readonly displayPath: string }): boolean => {
        const left = settled.get(file.displayPath);
        if (left === undefined) return false;
        unplanned++;
        errorsLeft += left.errorCount;
        warningsLeft += left.warningCount;
        return true;
      };

      for (const group of discovery.groups) {
        if (prompts?.quit() === true) break;
        await pause();
        progress.step(++seen);
        if (group.files.every((f) => settled.has(f.displayPath))) {
          for (const f of group.files) leftUnplanned(f);
          continue;
        }
        let onDisk: ReturnType<typeof indexFile>[];
        try {
          // Other files of the group resolve cross-file parents; a file alone needs no
          // second index (the planner builds its own): for a 200 MB session, 1.56 GB peak down to 1.43 GB.
          onDisk = group.files.length > 1 ? group.files.map((f) => indexFile(f)) : [];
        } catch (error) {
          for (const f of group.files) skipFile(f.displayPath, `could not be read: ${error instanceof Error ? error.message : String(error)}`);
          continue;
        }
        linkGroup(onDisk, registry);
        for (const file of group.files) {
          if (prompts?.quit() === true) break;
          await pause(); // between files: a Ctrl-C stops here, before anything of this file is written
          if (leftUnplanned(file)) continue;
          const others = onDisk.filter((i) => i.file.path !== file.path);
          // One file that cannot be done never stops the others: it is skipped with its reason.
          try {
            let source: ByteSource;
            try {
              // Kept open until this file is done: the plan, its diff and the write read from it.
              source = fileSource(file.path);
            } catch (error) {
              skipFile(file.displayPath, `unreadable: ${describeFsError(error, file.displayPath)}`);
              continue;
            }
            // A live session is refused when written, so its questions are not asked:
            // it is planned as --yes would, to tell whether it would be written.
            const live = options.dryRun === true ? undefined : liveRefusalNow(file, writeOptions(io, fsPort, options, decidedBy));
            try {
              const plan = await planFile(file, source, lint, {
                allow,
                rules: only,
                decide: live === undefined ? prompts?.decide : undefined,
                requested: options.stripThinking === true ? stripThinkingRequest : undefined,
                // The machine formats say what check would, the request's validity included.
                checkRequest: options.dryRun === true && options.format !== 'stylish',
                link: (index) => linkGroup([index, ...others], registry),
                pause,
              });
              reported.push(plan);
              if (isForeign(plan)) {
                skipFile(file.displayPath, NOT_A_TRANSCRIPT);
                continue;
              }
              hiddenUnsafe += plan.skipped.filter((s) => s.applicability === 'unsafe' && !allow.has('unsafe')).length;
              const left = countBySeverity(plan.remaining);
              errorsLeft += left.errorCount;
              warningsLeft += left.warningCount;
              // Fixes that cancel each other out leave nothing to write.
              if (plan.applied.length === 0 || plan.sha256After === plan.sha256Before) continue;
              if (live !== undefined) {
                skipFile(file.displayPath, live);
                notWritten.add(plan);
                continue;
              }
              if (options.dryRun === true) {
                if (options.format === 'stylish') {
                  progress.clear();
                  const patch = rewritePatch(file.displayPath, source, plan.sizeBefore, plan.rewrite);
                  const diff = escapeForTerminal(renderPatch(patch), { multiline: true });
                  say(`${color ? colorDiff(diff, (s, t) => styleText(s, t, { validateStream: false })) : diff}${summaryLine(plan, 'would fix')}\n\n`);
                }
                continue;
              }
              await pause();
              checkInterrupt(); // the last look before this file's write
              const entry = await critical(() => commitPlan(plan, writeOptions(io, fsPort, options, decidedBy)));
              progress.clear();
              if (!quiet) {
                io.stdout.write(
                  `${summaryLine(plan, 'fixed')}\n  backup ${escapeForTerminal(entry.backup)}\n  undo with: ${undoCommand(entry.id, options)}\n`,
                );
              }
            } finally {
              source.close();
            }
          } catch (error) {
            if (error instanceof InterruptedError) throw error;
            const reason =
              error instanceof CclintError
                ? error.message
                : error instanceof RangeError
                  ? `cclint could not process it (${error.message}; a record nested too deep?)`
                  : `internal error: ${error instanceof Error ? error.message : String(error)}`;
            skipFile(file.displayPath, reason);
            const planned = reported.find((p) => p.file.path === file.path);
            if (planned !== undefined) notWritten.add(planned);
          }
        }
      }

      progress.clear();
      /** The transcripts planned: what the summary counts and `files` lists. */
      const plans = reported.filter((p) => !isForeign(p));
      const tooManyWarnings =
        options.maxWarnings !== undefined && warningsLeft > options.maxWarnings ? { maxWarnings: options.maxWarnings, foundWarnings: warningsLeft } : undefined;
      if (options.dryRun === true && options.format !== 'stylish') {
        // What check would report of the files once fixed, in check's formats (the spec's schema
        // version 2 for json, with the plan itself added as `files`).
        const after = reported.map(resultAfter);
        const results = quiet ? keepAtLeast(after, 'error') : after;
        const context = formatContextFor(io, options.format, false, { unreadableInputs: unreadableExplicit, maxWarningsExceeded: tooManyWarnings });
        if (options.format === 'json') {
          say(`${terminalSafeJson({ ...jsonReport(results), files: plans.map(planReport) })}\n`);
        } else {
          say(FORMATTERS[options.format](results, context));
        }
      } else if (!quiet || errorsLeft > 0 || tooManyWarnings !== undefined || skippedFiles.length > 0) {
        const done = plans.filter((p) => !notWritten.has(p));
        const changed = done.filter((p) => p.applied.length > 0).length;
        const fixes = done.reduce((n, p) => n + p.applied.length, 0);
        const verb = options.dryRun === true ? 'would apply' : 'applied';
        const quit = prompts?.quit() === true;
        const considered = plans.length + unplanned;
        say(`${verb} ${fixes} fix(es) in ${changed} of ${considered} file(s)`);
        if (quit && total > considered) say(`; quit before the other ${total - considered} file(s)`);
        say(errorsLeft > 0 ? `; ${errorsLeft} error(s) remain (see \`cclint check\`)\n` : '\n');
        for (const plan of plans) {
          for (const s of plan.skipped) {
            if (s.reason.startsWith('not applied')) {
              say(`  ${escapeForTerminal(`${plan.file.displayPath}:${s.line} ${s.ruleId}: ${s.reason}`)}\n`);
            }
          }
        }
        if (hiddenUnsafe > 0 && !quiet) say(`${hiddenUnsafe} more fix(es) available with --unsafe\n`);
        if (tooManyWarnings !== undefined) {
          say(`cclint found too many warnings (maximum: ${countText(tooManyWarnings.maxWarnings)}; ${countText(warningsLeft)} remain).\n`);
        }
        if (skippedFiles.length > 0) {
          say(`skipped ${skippedFiles.length} file(s), left as they were:\n`);
          for (const s of skippedFiles) say(`  ${escapeForTerminal(s.shown)}: ${s.reason}\n`);
        }
      }
      if (options.outputFile !== undefined) writeReport(io, reportPieces, options.outputFile);
      setExit(failed ? 2 : errorsLeft > 0 || tooManyWarnings !== undefined ? 1 : 0);
    });
}
