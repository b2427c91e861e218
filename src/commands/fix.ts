/**
 * `cclint fix [paths…]`: plan repairs, show them, ask, then write each file
 * atomically with a backup and an audit line.
 *
 * Layers: the planner (src/repair/plan.ts) decides the new bytes, this
 * command shows and asks, and the writer (src/repair/write.ts) is the only
 * code that writes a transcript.
 */
import fs from 'node:fs';
import { styleText } from 'node:util';
import { Command, Option } from 'commander';
import { defaultProjectsRoot, describeFsError, discover } from '../core/discovery.js';
import { UsageError } from '../core/errors.js';
import { indexFile, linkGroup, ProjectRegistry } from '../engine/linter.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Applicability, Finding, Fix, RecordEdit } from '../core/types.js';
import { countBySeverity } from '../core/types.js';
import { critical } from '../interrupt.js';
import type { Io } from '../io.js';
import { useColor } from '../io.js';
import type { PlanPolicy } from '../repair/plan.js';
import type { Decider, FilePlan } from '../repair/types.js';
import { collect, reportIgnored, resolveInputs, runConfig, sessionProgress } from './shared.js';
import { VERSION } from '../version.js';

interface FixOptions {
  readonly dryRun?: boolean | undefined;
  readonly yes?: boolean | undefined;
  readonly unsafe?: boolean | undefined;
  readonly format: 'stylish' | 'json';
  readonly rule: string[];
  readonly config?: string | undefined;
  readonly backupDir?: string | undefined;
  readonly auditLog?: string | undefined;
  readonly force?: boolean | undefined;
  readonly color?: boolean | undefined;
}

const HELP = `y - apply this fix
n - do not apply this fix
a - apply this fix and every later fix of the same rule in this file
d - do not apply this fix or any later fix of the same rule in this file
q - quit; do not apply this fix or any later one (fixes already accepted in this file are written)
? - print help`;

async function enquirerAsk(question: string): Promise<string> {
  const { default: enquirer } = (await import('enquirer')) as unknown as {
    default: { prompt(q: object): Promise<Record<string, string>> };
  };
  try {
    const answer = await enquirer.prompt({ type: 'input', name: 'answer', message: question });
    return answer.answer ?? '';
  } catch {
    // enquirer rejects on Ctrl-C
    const { InterruptedError } = await import('../core/errors.js');
    throw new InterruptedError();
  }
}

type DiffModule = typeof import('../repair/diff.js');

/** The changed lines of one fix, shown the way the dry-run diff shows them. */
function fixHunk({ filePatch, renderPatch }: DiffModule, index: SessionIndex, edits: readonly RecordEdit[]): string {
  // Whole lines, each with its newline, so the hunk pairs old and new records.
  const before = Buffer.from(edits.filter((e) => e.kind !== 'insertAfter').map((e) => `${(e as { before: string }).before}\n`).join(''));
  const after = Buffer.from(edits.flatMap((e) => (e.kind === 'delete' ? [] : e.after.map((a) => `${a}\n`))).join(''));
  return renderPatch(filePatch(index.file.displayPath, before, after));
}

function interactivePolicy(
  io: Io,
  color: boolean,
  diff: DiffModule,
): { decide: NonNullable<PlanPolicy['decide']>; quit: () => boolean } {
  const ask = io.ask ?? enquirerAsk;
  const ruleChoice = new Map<string, boolean>();
  let quit = false;
  const paint = (style: 'red' | 'green' | 'cyan' | 'bold', s: string) => (color ? styleText(style, s, { validateStream: false }) : s);
  return {
    quit: () => quit,
    decide: async (finding: Finding, fix: Fix, edits: readonly RecordEdit[], index: SessionIndex) => {
      if (quit) return false;
      const key = `${index.file.path}\u0000${finding.ruleId}`;
      const remembered = ruleChoice.get(key);
      if (remembered !== undefined) return remembered;
      io.stdout.write(
        `\n${index.file.displayPath}:${finding.line}  ${finding.ruleId}  ${finding.message}\n` +
          `${fix.applicability === 'unsafe' ? '[unsafe] ' : ''}${fix.title}\n${diff.colorDiff(fixHunk(diff, index, edits), paint)}\n`,
      );
      for (;;) {
        const answer = (await ask('Apply this fix? [y,n,a,d,q,?]')).trim().toLowerCase();
        if (answer === 'y') return true;
        if (answer === 'n') return false;
        if (answer === 'a' || answer === 'd') {
          ruleChoice.set(key, answer === 'a');
          return answer === 'a';
        }
        if (answer === 'q') {
          quit = true;
          return false;
        }
        io.stdout.write(`${HELP}\n`);
      }
    },
  };
}

function planJson(plan: FilePlan): object {
  return {
    filePath: plan.file.displayPath,
    sessionId: plan.file.layoutSessionId,
    sha256Before: plan.sha256Before,
    sha256After: plan.sha256After,
    resumeBefore: plan.resumeBefore,
    resumeAfter: plan.resumeAfter,
    scoreBefore: plan.scoreBefore,
    scoreAfter: plan.scoreAfter,
    applied: plan.applied.map((a) => ({
      ruleId: a.ruleId,
      title: a.title,
      applicability: a.applicability,
      pass: a.pass,
      edits: a.edits,
    })),
    skipped: plan.skipped,
    remaining: countBySeverity(plan.remaining),
  };
}

function summaryLine(plan: FilePlan, verb: string): string {
  const r = plan.resumeBefore;
  const a = plan.resumeAfter;
  const resume =
    a.loaded !== r.loaded ? `; resume ${verb === 'fixed' ? 'now loads' : 'would load'} ${a.loaded} of ${a.total} messages (was ${r.loaded})` : '';
  return `${verb} ${plan.file.displayPath}: ${plan.applied.length} fix(es)${resume}`;
}

export function fixCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('fix')
    .description('repair transcripts: plan fixes, show them, ask, then write atomically with a backup and an audit line')
    .argument('[paths...]', 'session files, project folders or a projects root (default: the local Claude Code projects folder)')
    .option('--dry-run', 'print the unified diff of what would change and write nothing')
    .option('-y, --yes', 'apply without asking what the policy allows (safe fixes; unsafe too with --unsafe)')
    .option('--unsafe', 'also apply fixes marked unsafe (heuristic relinks, new uuids, content rewrites)')
    .addOption(new Option('-f, --format <name>', 'dry-run output').choices(['stylish', 'json']).default('stylish'))
    .option('--rule <id>', 'only fix what this rule finds (repeatable)', collect, [])
    .option('-c, --config <file>', 'use this config file instead of the .cclintrc.json / cclint.config.json found from here upward')
    .option('--backup-dir <dir>', 'where backups go (default: $CCLINT_HOME/backups, never inside the projects folder)')
    .option('--audit-log <file>', 'the append-only audit log (default: $CCLINT_HOME/audit.jsonl)')
    .option('--force', 'write even when the session looks active (changed in the last 60 s or held by a running Claude Code)')
    .option('--no-color', 'no colour, even on a terminal')
    .addHelpText(
      'after',
      `
Examples:
  cclint fix --dry-run session.jsonl        review the diff; nothing is written
  cclint fix session.jsonl                  walk the fixes and answer y/n/a/d/q for each
  cclint fix --yes ~/.claude/projects        apply every safe fix, no questions
  cclint fix --yes --unsafe --force x.jsonl  everything the planner accepts, even on a live session
  cclint restore <audit-id>                 undo a fix (ids are in $CCLINT_HOME/audit.jsonl)

Every write: backup (mode 0600) under $CCLINT_HOME/backups, re-hash to catch concurrent changes,
atomic rename, one audit line. A fix that would add a finding or lower resume fidelity is dropped.
Exit codes: 0 nothing at error level remains, 1 errors remain, 2 cclint could not do its job, 130 interrupted.`,
    )
    .action(async (paths: string[], options: FixOptions) => {
      const interactive = options.dryRun !== true && options.yes !== true;
      if (interactive && !(io.stdinIsTTY && io.stdout.isTTY) && io.ask === undefined) {
        throw new UsageError('fix needs a terminal to ask on; pass --yes to apply safe fixes without asking, or --dry-run to review them');
      }
      const color = useColor(io.stdout, io.env, options.color);
      // The write path loads only when fix runs, so `check` starts fast.
      const diff = await import('../repair/diff.js');
      const { colorDiff, filePatch, renderPatch } = diff;
      const { planFile } = await import('../repair/plan.js');
      const { cclintHome, commitPlan } = await import('../repair/write.js');
      const { nodeFs } = await import('../repair/fs-port.js');
      const { lint, ignore } = runConfig(io, options.config, []);
      const { inputs } = resolveInputs(paths, io);
      const discovery = discover(inputs, io.cwd, { ignore });
      reportIgnored(io, discovery.ignoredExplicit);
      let failed = false;
      for (const problem of discovery.problems) {
        io.stderr.write(`cclint: ${problem.message}\n`);
        if (problem.explicit) failed = true;
      }
      const allow = new Set<Applicability>(options.unsafe === true ? ['safe', 'unsafe'] : ['safe']);
      const only = options.rule.length > 0 ? new Set(options.rule) : undefined;
      const prompts = interactive ? interactivePolicy(io, color, diff) : undefined;
      const registry = new ProjectRegistry(discovery.projectFiles);
      const plans: FilePlan[] = [];
      const fsPort = nodeFs();
      const decidedBy: Decider = options.yes === true ? 'yes' : 'interactive';
      let errorsLeft = 0;
      let hiddenUnsafe = 0;
      const progress = sessionProgress(io, options.dryRun === true ? 'planning' : 'fixing', discovery.groups.length, !interactive);
      let seen = 0;

      for (const group of discovery.groups) {
        if (prompts?.quit() === true) break;
        progress.step(++seen);
        const onDisk = group.files.map((f) => indexFile(f));
        linkGroup(onDisk, registry);
        for (const file of group.files) {
          if (prompts?.quit() === true) break;
          const others = onDisk.filter((i) => i.file.path !== file.path);
          let bytes: Buffer;
          try {
            bytes = fs.readFileSync(file.path);
          } catch (error) {
            progress.clear();
            io.stderr.write(`cclint: ${describeFsError(error, file.displayPath)}\n`);
            failed = true;
            continue;
          }
          const plan = await planFile(file, bytes, lint, {
            allow,
            rules: only,
            decide: prompts?.decide,
            link: (index) => linkGroup([index, ...others], registry),
          });
          plans.push(plan);
          hiddenUnsafe += plan.skipped.filter((s) => s.applicability === 'unsafe' && !allow.has('unsafe')).length;
          errorsLeft += countBySeverity(plan.remaining).errorCount;
          // Fixes that cancel each other out leave nothing to write.
          if (plan.applied.length === 0 || plan.after.equals(plan.before)) continue;
          if (options.dryRun === true) {
            if (options.format === 'stylish') {
              progress.clear();
              const diff = renderPatch(filePatch(file.displayPath, plan.before, plan.after));
              io.stdout.write(`${color ? colorDiff(diff, (s, t) => styleText(s, t, { validateStream: false })) : diff}${summaryLine(plan, 'would fix')}\n\n`);
            }
            continue;
          }
          const entry = await critical(() =>
            commitPlan(plan, {
              fs: fsPort,
              env: io.env,
              cclintHome: cclintHome(io.env, io.cwd),
              cwd: io.cwd,
              projectsRoot: defaultProjectsRoot(io.env),
              backupDir: options.backupDir,
              auditLog: options.auditLog,
              force: options.force === true,
              decidedBy,
              version: VERSION,
              now: io.now ?? Date.now,
            }),
          );
          progress.clear();
          io.stdout.write(`${summaryLine(plan, 'fixed')}\n  backup ${entry.backup}\n  undo with: cclint restore ${entry.id}\n`);
        }
      }

      progress.clear();
      if (options.dryRun === true && options.format === 'json') {
        io.stdout.write(`${JSON.stringify({ version: 1, files: plans.map(planJson) }, null, 2)}\n`);
      } else {
        const changed = plans.filter((p) => p.applied.length > 0).length;
        const fixes = plans.reduce((n, p) => n + p.applied.length, 0);
        const verb = options.dryRun === true ? 'would apply' : 'applied';
        io.stdout.write(`${verb} ${fixes} fix(es) in ${changed} of ${plans.length} file(s)`);
        io.stdout.write(errorsLeft > 0 ? `; ${errorsLeft} error(s) remain (see \`cclint check\`)\n` : '\n');
        for (const plan of plans) {
          for (const s of plan.skipped) {
            if (s.reason.startsWith('not applied')) io.stdout.write(`  ${plan.file.displayPath}:${s.line} ${s.ruleId}: ${s.reason}\n`);
          }
        }
        if (hiddenUnsafe > 0) io.stdout.write(`${hiddenUnsafe} more fix(es) available with --unsafe\n`);
      }
      setExit(failed ? 2 : errorsLeft > 0 ? 1 : 0);
    });
}
