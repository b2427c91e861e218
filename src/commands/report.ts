/**
 * `cclint report [paths…] -o report.html`: one self-contained HTML file, the
 * sessions table and per session its tree, findings and what resume loses
 * (src/formatters/report-html.ts draws the core's view models). `--fixes`
 * adds the dry-run diff of what `fix` would change: the planner runs in
 * memory and nothing is written. Exit 0, or 2 when a named path cannot be
 * read, is not a transcript or holds no session file, or the file cannot
 * be written.
 */
import { Command } from 'commander';
import { fileSource } from '../core/reader.js';
import type { SessionIndex } from '../core/session-index.js';
import { describeNotTranscript } from '../core/transcript.js';
import type { Applicability, Finding, FileResult } from '../core/types.js';
import type { Conversation } from '../core/views/conversation.js';
import { type FileFacts, type PlacedRow, type SessionRow, factsOf, placeRows, rowOf, titleOf } from '../core/views/sessions.js';
import { type LintOptions, lintGroup, lintIndex, linkGroup, ProjectRegistry, resultOf } from '../engine/linter.js';
import { reportHtml, sessionPageHtml, sessionSectionHtml } from '../formatters/report-html.js';
import { sectionOf } from '../core/views/report.js';
import type { Io } from '../io.js';
import { VERSION } from '../version.js';
import { checkOutputFile, collect, note, sessionProgress, discoverInputs, resolveInputs, runConfig, writeReport } from './shared.js';

export interface ReportOptions {
  readonly outputFile?: string;
  readonly fixes?: boolean;
  readonly title?: string;
  readonly rule: string[];
  readonly config?: string;
}

/** The dry-run diff `cclint fix` would print for a file (safe fixes), or undefined when it would change nothing. */
async function dryRunDiff(index: SessionIndex, others: readonly SessionIndex[], lint: LintOptions, registry: ProjectRegistry): Promise<string | undefined> {
  const { planFile } = await import('../repair/plan.js');
  const { rewritePatch, renderPatch } = await import('../repair/diff.js');
  const source = fileSource(index.file.path);
  try {
    const plan = await planFile(index.file, source, lint, {
      allow: new Set<Applicability>(['safe']),
      rules: undefined,
      decide: undefined,
      link: (i) => linkGroup([i, ...others], registry),
    });
    if (plan.applied.length === 0 || plan.sha256After === plan.sha256Before) return undefined;
    return renderPatch(rewritePatch(index.file.displayPath, source, plan.sizeBefore, plan.rewrite));
  } finally {
    source.close();
  }
}

/** The single-session page `export --format html` writes, in pieces: the report's section for the file, with the conversation. */
export function singleSessionHtml(index: SessionIndex, conversation: Conversation, options: { readonly thinking: boolean }, lint?: LintOptions): Generator<string> {
  const findings = lint === undefined ? [] : lintIndex(index, lint);
  const section = sectionOf(index, findings, resultOf(index, findings), conversation.title, { conversation, thinking: options.thinking });
  return sessionPageHtml(conversation.title, section);
}

/** The sections of the placed rows, in their order, decoded one at a time as the page is written. */
function* sectionsInOrder(placed: readonly PlacedRow[], sectionByRow: ReadonlyMap<SessionRow, { readonly html: Buffer }>): Generator<string> {
  for (const p of placed) {
    const html = sectionByRow.get(p.row)?.html;
    if (html !== undefined) yield html.toString('utf8');
  }
}

export function reportCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('report')
    .description('one self-contained HTML file: the sessions table and, per session, its tree drawn as a picture, findings and what resume loses')
    .argument('[paths...]', 'session files, project folders or a projects root (default: the local Claude Code projects folder)')
    .option('-o, --output-file <file>', 'write the page to this file (folders are created; never a .jsonl path); default stdout')
    .option('--fixes', 'add, per session, the dry-run diff of what `cclint fix` would change (nothing is written)')
    .option('--title <text>', 'the page title', 'cclint report')
    .option('--rule <id[=severity]>', 'run only this rule (repeatable); with =severity also set its level, as check --rule', collect, [])
    .option('-c, --config <file>', 'use this config file instead of the .cclintrc.json / cclint.config.json found from here upward')
    .addHelpText(
      'after',
      `
The page has no outside resources (it works from file:// and offline) and its table reads
without JavaScript (which only adds sorting). Each session's tree is drawn like
\`git log --graph\`, oldest first: green the messages \`claude --resume\` loads, grey what it
does not (abandoned branches), red an orphaned branch with what resume loses, a yellow
diamond a compact boundary; long linear runs fold (click to expand), and a run of more than
${2 * 200} rows is drawn only at its ends so a huge session stays a few MB. Findings sit under
their row.

Examples:
  cclint report -o report.html                       every session under ~/.claude/projects
  cclint report --fixes -o report.html ~/.claude/projects/-home-me-app
  cclint report fixtures/demo -o demo.html

Exit codes: 0 (a report, whatever it finds), 2 when a named path cannot be read, is not a
transcript, or holds no session file, or the file cannot be written.`,
    )
    .action(async (paths: string[], options: ReportOptions) => {
      checkOutputFile(io, options.outputFile, paths);
      const { lint, ignore } = runConfig(io, options.config, options.rule);
      const { inputs } = resolveInputs(paths, io);
      const { discovery, unreadableExplicit } = discoverInputs(io, inputs, { ignore });
      let failed = unreadableExplicit;
      const registry = new ProjectRegistry(discovery.projectFiles);
      const progress = sessionProgress(io, 'reading', discovery.groups.length);
      const rows: SessionRow[] = [];
      // UTF-8 bytes, outside the heap and half the size of a string that holds one character beyond Latin-1.
      const sectionByRow = new Map<SessionRow, { anchor: string; html: Buffer }>();
      for (const [i, group] of discovery.groups.entries()) {
        progress.step(i + 1);
        const seen: Array<{ index: SessionIndex; findings: readonly Finding[]; facts: FileFacts }> = [];
        const outcome = lintGroup(group, lint, registry, (index, findings) => seen.push({ index, findings, facts: factsOf(index) }));
        for (const failure of outcome.failures) {
          progress.clear(); // a note never lands on the progress line
          note(io, failure.message);
          if (paths.some((p) => failure.path.endsWith(p) || p.endsWith(failure.path))) failed = true;
        }
        const results: FileResult[] = [];
        const kept: typeof seen = [];
        outcome.results.forEach((result, at) => {
          const file = seen[at];
          if (file === undefined) return;
          if (file.facts.notTranscript === undefined) {
            results.push(result);
            kept.push(file);
            return;
          }
          progress.clear();
          note(io, `${result.filePath}: ${describeNotTranscript(file.facts.notTranscript)}; skipped`);
          if (group.files.some((f) => f.displayPath === result.filePath && f.explicit === true)) failed = true;
        });
        const row = rowOf(results, kept.map((k) => k.facts), group.projectDir, group.files[0]?.projectFolderName ?? '');
        if (row === undefined) continue;
        rows.push(row);
        // The main file speaks for the session, as in the table.
        const mainAt = Math.max(0, kept.findIndex((k) => k.facts.role === 'main'));
        const main = kept[mainAt];
        const mainResult = results[mainAt];
        if (main === undefined || mainResult === undefined) continue;
        const diff =
          options.fixes === true
            ? await dryRunDiff(main.index, kept.filter((k) => k !== main).map((k) => k.index), lint, registry)
            : undefined;
        const section = sectionOf(main.index, main.findings, mainResult, titleOf(main.facts), { diff });
        sectionByRow.set(row, { anchor: section.anchor, html: Buffer.from(sessionSectionHtml(section), 'utf8') });
      }
      progress.clear();
      const placed = placeRows(rows);
      const anchors = new Map<SessionRow, string>();
      for (const [row, s] of sectionByRow) anchors.set(row, s.anchor);
      const html = reportHtml({
        title: options.title ?? 'cclint report',
        generated: `${new Date(io.now?.() ?? Date.now()).toISOString().slice(0, 16).replace('T', ' ')} UTC, cclint ${VERSION}`,
        rows: placed,
        anchors,
        sections: sectionsInOrder(placed, sectionByRow),
        notes: options.fixes === true ? ['The diffs are what `cclint fix --dry-run` prints: safe fixes only; nothing was written.'] : [],
      });
      writeReport(io, html, options.outputFile);
      if (options.outputFile !== undefined) note(io, `report written to ${options.outputFile} (${placed.length} session${placed.length === 1 ? '' : 's'})`);
      setExit(failed ? 2 : 0);
    });
}
