/**
 * `cclint sessions [paths…]`: one row per session, newest first: title, last
 * activity, records, resume fidelity, corruption score and findings.
 * Subagent files are folded into their session; a session that continues
 * another (it carries the other's `sessionId` on copied records, the other
 * names it in a `continued-in` record, or both share one `slug`) is shown
 * under its origin, marked `↳`. A report: exit 0, or 2 when a named path
 * cannot be read, is not a transcript or holds no session file. A file that
 * is not a transcript makes no row; a note says so.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { didYouMean } from '../core/did-you-mean.js';
import { describeNotTranscript } from '../core/transcript.js';
import type { FileResult } from '../core/types.js';
import {
  type FileFacts,
  type SessionRow,
  type SortOrder,
  DESCENDING_BY_DEFAULT,
  SORT_COLUMNS,
  isBroken,
  placeRows,
  rowOf,
  sortPlaced,
} from '../core/views/sessions.js';
import { renderSessionsTable, sessionsJson } from '../formatters/sessions.js';
import type { Io } from '../io.js';
import { useColor } from '../io.js';
import { painter } from './render.js';
import { checkOutputFile, collect, lintInputs, note, resolveInputs, runConfig, writeReport } from './shared.js';
import { countText } from '../core/count-text.js';

// The model (src/core/views/sessions.ts) and its renderers (src/formatters/sessions.ts), re-exported for existing importers.
export {
  type FileFacts,
  type PlacedRow,
  type SessionRow,
  type SortColumn,
  type SortOrder,
  SORT_COLUMNS,
  isBroken,
  isRealPrompt,
  placeRows,
  rowOf,
  sortPlaced,
  titleOf,
} from '../core/views/sessions.js';
export { TITLE_WIDTH, renderSessionsTable, sessionsJson } from '../formatters/sessions.js';

/** `--sort <column>[:asc|:desc]`. */
export function parseSort(value: string): SortOrder {
  const [name = '', direction, ...rest] = value.split(':');
  const column = SORT_COLUMNS.find((c) => c === name);
  if (column === undefined) {
    throw new InvalidArgumentError(`unknown column "${name}"${didYouMean(name, SORT_COLUMNS)}; one of ${SORT_COLUMNS.join(', ')}`);
  }
  if (rest.length > 0 || (direction !== undefined && direction !== 'asc' && direction !== 'desc')) {
    throw new InvalidArgumentError('add :asc or :desc after the column, or nothing');
  }
  return { column, descending: direction === undefined ? DESCENDING_BY_DEFAULT[column] : direction === 'desc' };
}

export interface SessionsRun {
  readonly rows: SessionRow[];
  readonly unreadableExplicit: boolean;
}

/**
 * Discovers and lints like `check` (every rule, the config's severities and
 * ignores; the same engine, on worker threads for a big input, with its
 * cache under `--cache`), each result with its file's facts, and folds each
 * group into a row.
 */
export interface SessionsSettings {
  readonly cache?: boolean | undefined;
  /** `--config`: this file instead of the one found upward. */
  readonly config?: string | undefined;
  /** `--rule`: only these rules count in the findings columns (as `check --rule`). */
  readonly rule?: readonly string[] | undefined;
}

export async function runSessions(paths: readonly string[], io: Io, settings: SessionsSettings = {}): Promise<SessionsRun> {
  const { lint, ignore } = runConfig(io, settings.config, settings.rule ?? []);
  const run = await lintInputs(io, resolveInputs(paths, io).inputs, {
    lint: { ...lint, facts: true },
    discover: { ignore },
    cache: settings.cache === true ? 'sessions' : undefined,
    verb: 'reading',
  });
  let unreadableExplicit = run.unreadableExplicit;
  const { discovery } = run;
  const byPath = new Map(run.results.map((r) => [r.filePath, r]));
  const rows: SessionRow[] = [];
  for (const group of discovery.groups) {
    // A file that is not a transcript is no session: said once, and left out.
    const results: FileResult[] = [];
    const sessionFacts: FileFacts[] = [];
    for (const file of group.files) {
      const result = byPath.get(file.displayPath);
      const facts = result?.facts;
      if (result === undefined || facts === undefined) continue;
      if (facts.notTranscript === undefined) {
        results.push(result);
        sessionFacts.push(facts);
        continue;
      }
      note(io, `${result.filePath}: ${describeNotTranscript(facts.notTranscript)}; skipped`);
      if (file.explicit === true) unreadableExplicit = true;
    }
    const row = rowOf(results, sessionFacts, group.projectDir, group.files[0]?.projectFolderName ?? '');
    if (row !== undefined) rows.push(row);
  }
  return { rows, unreadableExplicit };
}

export function sessionsCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('sessions')
    .description('one row per session, newest first: title, last activity, records, resume fidelity, score, findings')
    .argument('[paths...]', 'session files, project folders or a projects root (default: the local Claude Code projects folder)')
    .addOption(new Option('-f, --format <name>', 'output format').choices(['table', 'json']).default('table'))
    .option('--no-color', 'no colour, even on a terminal (NO_COLOR is honoured too)')
    .option('--rule <id[=severity]>', 'count only this rule in the errors and warnings columns (repeatable), as check --rule', collect, [])
    .option('-c, --config <file>', 'use this config file instead of the .cclintrc.json / cclint.config.json found from here upward')
    .option('--sort <column>', `order the rows by a column (${SORT_COLUMNS.join(', ')}), :asc or :desc to choose the direction`, parseSort)
    .option('--broken', 'only sessions with something wrong: an error or warning, a resume loss, a corruption score above 0, a resumed request the API rejects')
    .option('-o, --output-file <file>', 'write the report to this file instead of stdout (folders are created)')
    .option('--cache', 'remember what was read under $CCLINT_HOME/cache; a session whose files did not change is not read again, and one of 64 MB or more that only grew is read from where it ended')
    .addHelpText(
      'after',
      `
Subagent files count with their session. A session that continues another (same slug,
copied records of the other session, or a continued-in record) is listed under it, marked ↳.
Fidelity is the share of the conversation \`claude --resume\` loads; score is the corruption
likelihood (0 healthy, 1 broken); errors and warnings are \`cclint check\`'s findings. An api
column, shown when some session needs it, says 400 where the first request after
\`claude --resume\` would be rejected (API Error 400).

--sort orders the rows in a flat list, each column its own way unless :asc or :desc says
otherwise: last activity, records, score, errors and warnings highest first, fidelity lowest
first, api rejected first, session, project and title A to Z.

Examples:
  cclint sessions                                  every session under ~/.claude/projects
  cclint sessions ~/.claude/projects/-home-me-app  one project
  cclint sessions --broken --sort score            only sessions with a problem, most likely corrupted first
  cclint sessions --sort last:asc                  oldest activity first
  cclint sessions --format json                    [{sessionId, title, lastActivity, records, fidelity, apiValid, score, errors, warnings, continues}]

Exit codes: 0 (a report, whatever it finds), 2 when a named path cannot be read, is not a
transcript, or holds no session file.`,
    )
    .action(
      async (
        paths: string[],
        options: {
          format: 'table' | 'json';
          color?: boolean;
          sort?: SortOrder;
          broken?: boolean;
          outputFile?: string;
          cache?: boolean;
          rule: string[];
          config?: string;
        },
      ) => {
        checkOutputFile(io, options.outputFile, paths);
        const run = await runSessions(paths, io, { cache: options.cache, config: options.config, rule: options.rule });
        const rows = options.broken === true ? run.rows.filter(isBroken) : run.rows;
        const placed = options.sort === undefined ? placeRows(rows) : sortPlaced(placeRows(rows), options.sort);
        const color = options.outputFile === undefined && useColor(io.stdout, io.env, options.color);
        const text =
          options.format === 'json'
            ? sessionsJson(placed)
            : placed.length === 0 && options.broken === true && run.rows.length > 0
              ? `no session with something wrong among ${countText(run.rows.length)}\n`
              : renderSessionsTable(placed, painter(color));
        writeReport(io, text, options.outputFile);
        setExit(run.unreadableExplicit ? 2 : 0);
      },
    );
}
