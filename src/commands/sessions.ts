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
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { didYouMean } from '../core/did-you-mean.js';
import { defaultProjectsRoot, discover } from '../core/discovery.js';
import { groupCache, openCache, plainResult } from '../engine/cache.js';
import { type GroupOutcome, lintGroup, ProjectRegistry } from '../engine/linter.js';
import { type RecordSummary, INTERRUPT_MARKER } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import { type NotTranscript, describeNotTranscript, notTranscript } from '../core/transcript.js';
import type { FileResult } from '../core/types.js';
import type { Io } from '../io.js';
import { useColor } from '../io.js';
import { escapeForTerminal, terminalSafeJson } from '../escape.js';
import { type Paint, cut, dateTime, flatten, pad, padStart, painter, percent } from './render.js';
import { checkWritableTarget, note, progressLine, reportIgnored, resolveInputs, runConfig, writeReport } from './shared.js';

/** Title characters shown in the table (indent and `↳` included). */
export const TITLE_WIDTH = 40;

/** What `sessions` keeps of one file while its group is linted. */
export interface FileFacts {
  readonly role: SessionIndex['file']['role'];
  readonly sessionId: string | undefined;
  /** Latest timestamp of a non-sidechain record (NaN when none). */
  readonly lastTime: number;
  /** Earliest timestamp of a non-sidechain record (NaN when none). */
  readonly firstTime: number;
  readonly customTitle: string | undefined;
  readonly aiTitle: string | undefined;
  readonly summary: string | undefined;
  readonly lastPrompt: string | undefined;
  readonly firstPrompt: string | undefined;
  readonly slug: string | undefined;
  /** Set when the file is not a transcript at all: it makes no row. */
  readonly notTranscript: NotTranscript | undefined;
  /** Other sessionIds on this file's records, with the ordinal of their last record. */
  readonly foreignSessions: ReadonlyMap<string, number>;
  /** `continued-in` targets named in this file. */
  readonly continuedIn: readonly string[];
}

/** One session of the report. */
export interface SessionRow {
  readonly sessionId: string | undefined;
  readonly filePath: string;
  readonly projectDir: string;
  readonly projectFolderName: string;
  readonly title: string;
  /** Latest timestamp of a non-sidechain record, ms; NaN when none. */
  readonly lastTime: number;
  readonly firstTime: number;
  readonly records: number;
  readonly fidelity: number;
  readonly score: number;
  readonly errors: number;
  readonly warnings: number;
  readonly slug: string | undefined;
  readonly foreignSessions: ReadonlyMap<string, number>;
  readonly continuedIn: readonly string[];
}

/** A row placed in the report: its continuation depth and origin. */
export interface PlacedRow {
  readonly row: SessionRow;
  readonly depth: number;
  readonly continues: string | undefined;
}

/** A user row someone typed: not tool results, meta, a compact summary, a tag or an interruption. */
export function isRealPrompt(r: RecordSummary): boolean {
  if (r.type !== 'user' || r.isSidechain || r.isMeta || r.isCompactSummary || r.toolResultIds.length > 0) return false;
  const text = r.excerpt.trimStart();
  return text !== '' && !/^<[A-Za-z!?/]/.test(text) && !text.startsWith(INTERRUPT_MARKER);
}

/** Reads what the report needs from an index (only summaries, plus the rare `continued-in` line). */
export function factsOf(index: SessionIndex): FileFacts {
  let lastTime = Number.NaN;
  let firstTime = Number.NaN;
  let customTitle: string | undefined;
  let aiTitle: string | undefined;
  let summary: string | undefined;
  let lastPrompt: string | undefined;
  let firstPrompt: string | undefined;
  let slug: string | undefined;
  const own = index.file.layoutSessionId;
  const foreignSessions = new Map<string, number>();
  const continuedIn: string[] = [];
  for (const r of index.records) {
    if (!r.isSidechain && !Number.isNaN(r.time)) {
      if (Number.isNaN(lastTime) || r.time > lastTime) lastTime = r.time;
      if (Number.isNaN(firstTime) || r.time < firstTime) firstTime = r.time;
    }
    if (slug === undefined && !r.isSidechain && r.slug !== undefined) slug = r.slug;
    if (own !== undefined && index.file.role === 'main' && !r.isSidechain && r.sessionId !== undefined && r.sessionId !== own) {
      foreignSessions.set(r.sessionId, r.ordinal);
    }
    switch (r.type) {
      case 'custom-title':
        if (r.excerpt !== '') customTitle = r.excerpt;
        break;
      case 'ai-title':
        if (r.excerpt !== '') aiTitle = r.excerpt;
        break;
      case 'summary':
        if (r.excerpt !== '') summary = r.excerpt;
        break;
      case 'last-prompt':
        if (r.excerpt !== '') lastPrompt = r.excerpt;
        break;
      case 'continued-in': {
        const target = index.recordObject(r)?.continuedInSessionId;
        if (typeof target === 'string' && target !== '') continuedIn.push(target);
        break;
      }
      case 'user':
        if (firstPrompt === undefined && isRealPrompt(r)) firstPrompt = r.excerpt;
        break;
      default:
        break;
    }
  }
  return {
    role: index.file.role,
    sessionId: own ?? index.records.find((r) => r.sessionId !== undefined)?.sessionId,
    lastTime,
    firstTime,
    customTitle,
    aiTitle,
    summary,
    lastPrompt,
    firstPrompt,
    slug,
    notTranscript: notTranscript(index),
    foreignSessions,
    continuedIn,
  };
}

/** The display title (format.md §9): custom title, AI title, summary, the prompt, else `(session)`. */
export function titleOf(f: FileFacts): string {
  const title = f.customTitle ?? f.aiTitle ?? f.summary ?? f.lastPrompt ?? f.firstPrompt;
  return title === undefined ? '(session)' : flatten(title).replace(/⏎/g, ' ').replace(/ {2,}/g, ' ');
}

/** Folds one group's files into a row: the main file speaks for the session; counts add up. */
export function rowOf(results: readonly FileResult[], facts: readonly FileFacts[], projectDir: string, projectFolderName: string): SessionRow | undefined {
  const mainAt = Math.max(0, facts.findIndex((f) => f.role === 'main'));
  const main = facts[mainAt];
  const mainResult = results[mainAt];
  if (main === undefined || mainResult === undefined) return undefined;
  return {
    sessionId: main.sessionId,
    filePath: mainResult.filePath,
    projectDir,
    projectFolderName,
    title: titleOf(main),
    lastTime: main.lastTime,
    firstTime: main.firstTime,
    records: results.reduce((n, r) => n + r.recordCount, 0),
    fidelity: mainResult.resume?.fidelity ?? 1,
    score: results.reduce((s, r) => Math.max(s, r.score ?? 0), 0),
    errors: results.reduce((n, r) => n + r.errorCount, 0),
    warnings: results.reduce((n, r) => n + r.warningCount, 0),
    slug: main.slug,
    foreignSessions: main.foreignSessions,
    continuedIn: main.continuedIn,
  };
}

const newestFirst = (a: number, b: number): number =>
  Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : Number.isNaN(b) ? -1 : b - a;

/**
 * Links continuations to their origins and orders the report: conversations
 * newest first by their latest activity, each origin followed by its
 * continuations (newest first), indented one level per step.
 */
export function placeRows(rows: readonly SessionRow[]): PlacedRow[] {
  const key = (r: SessionRow): string => `${r.projectDir}\u0000${r.sessionId ?? r.filePath}`;
  const bySession = new Map<string, SessionRow>();
  for (const r of rows) if (r.sessionId !== undefined && !bySession.has(key(r))) bySession.set(key(r), r);
  const lookup = (from: SessionRow, sessionId: string): SessionRow | undefined =>
    bySession.get(`${from.projectDir}\u0000${sessionId}`);
  const origin = new Map<SessionRow, SessionRow>();
  const wouldCycle = (child: SessionRow, parent: SessionRow): boolean => {
    for (let p: SessionRow | undefined = parent; p !== undefined; p = origin.get(p)) if (p === child) return true;
    return false;
  };
  const link = (child: SessionRow | undefined, parent: SessionRow | undefined): void => {
    if (child === undefined || parent === undefined || child === parent || origin.has(child) || wouldCycle(child, parent)) return;
    origin.set(child, parent);
  };
  for (const r of rows) for (const target of r.continuedIn) link(lookup(r, target), r);
  for (const r of rows) {
    // The copied history of the session it continues: the foreign id written last.
    const foreign = [...r.foreignSessions].sort((a, b) => b[1] - a[1]);
    for (const [sessionId] of foreign) {
      const parent = lookup(r, sessionId);
      if (parent !== undefined) {
        link(r, parent);
        break;
      }
    }
  }
  const bySlug = new Map<string, SessionRow[]>();
  for (const r of rows) {
    if (r.slug === undefined) continue;
    const k = `${r.projectDir}\u0000${r.slug}`;
    const list = bySlug.get(k);
    if (list === undefined) bySlug.set(k, [r]);
    else list.push(r);
  }
  for (const list of bySlug.values()) {
    list.sort((a, b) => -newestFirst(a.firstTime, b.firstTime) || (a.filePath < b.filePath ? -1 : 1));
    for (let i = 1; i < list.length; i++) link(list[i], list[i - 1]);
  }

  const children = new Map<SessionRow, SessionRow[]>();
  for (const [child, parent] of origin) {
    const list = children.get(parent);
    if (list === undefined) children.set(parent, [child]);
    else list.push(child);
  }
  const latest = new Map<SessionRow, number>();
  const latestOf = (r: SessionRow): number => {
    const known = latest.get(r);
    if (known !== undefined) return known;
    let t = r.lastTime;
    for (const c of children.get(r) ?? []) {
      const ct = latestOf(c);
      if (Number.isNaN(t) || ct > t) t = ct;
    }
    latest.set(r, t);
    return t;
  };
  const byActivity = (a: SessionRow, b: SessionRow): number =>
    newestFirst(latestOf(a), latestOf(b)) || (a.filePath < b.filePath ? -1 : a.filePath > b.filePath ? 1 : 0);
  const placed: PlacedRow[] = [];
  const visit = (r: SessionRow, depth: number): void => {
    placed.push({ row: r, depth, continues: origin.get(r)?.sessionId });
    for (const c of [...(children.get(r) ?? [])].sort(byActivity)) visit(c, depth + 1);
  };
  for (const r of rows.filter((row) => !origin.has(row)).sort(byActivity)) visit(r, 0);
  return placed;
}

/** Columns `--sort` takes: the table's, with `last` for the last activity. */
export const SORT_COLUMNS = ['session', 'project', 'title', 'last', 'records', 'fidelity', 'score', 'errors', 'warnings'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

export interface SortOrder {
  readonly column: SortColumn;
  readonly descending: boolean;
}

/**
 * Each column's own direction: trouble and recent activity first (highest
 * score, errors, warnings, records; lowest fidelity; newest), names A to Z.
 */
const DESCENDING_BY_DEFAULT: Readonly<Record<SortColumn, boolean>> = {
  session: false,
  project: false,
  title: false,
  last: true,
  records: true,
  fidelity: false,
  score: true,
  errors: true,
  warnings: true,
};

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

function sortKey(row: SessionRow, column: SortColumn): string | number {
  switch (column) {
    case 'session':
      return row.sessionId ?? '';
    case 'project':
      return row.projectFolderName;
    case 'title':
      return row.title.toLowerCase();
    case 'last':
      return row.lastTime;
    default:
      return row[column];
  }
}

/**
 * The rows in one flat list ordered by a column (ties keep the report's
 * order); a continuation is no longer drawn under its origin, and says
 * which session it continues only in `--format json`. Sessions without a
 * timestamp go last whichever the direction.
 */
export function sortPlaced(placed: readonly PlacedRow[], order: SortOrder): PlacedRow[] {
  const sign = order.descending ? -1 : 1;
  return placed
    .map((p) => ({ ...p, depth: 0 }))
    .sort((a, b) => {
      const x = sortKey(a.row, order.column);
      const y = sortKey(b.row, order.column);
      if (typeof x === 'number' && typeof y === 'number' && (Number.isNaN(x) || Number.isNaN(y))) {
        return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : 1) : -1;
      }
      return x < y ? -sign : x > y ? sign : 0;
    });
}

/** Something is wrong with the session: a finding above info, a resume loss, or a corruption score above 0. */
export function isBroken(row: SessionRow): boolean {
  return row.errors > 0 || row.warnings > 0 || row.fidelity < 1 || row.score > 0;
}

/** `--format json`: one object per session, in report order. */
export function sessionsJson(placed: readonly PlacedRow[]): string {
  const list = placed.map(({ row, continues }) => ({
    sessionId: row.sessionId ?? null,
    filePath: row.filePath,
    project: row.projectFolderName,
    title: row.title,
    lastActivity: Number.isNaN(row.lastTime) ? null : new Date(row.lastTime).toISOString(),
    records: row.records,
    fidelity: row.fidelity,
    score: row.score,
    errors: row.errors,
    warnings: row.warnings,
    continues: continues ?? null,
  }));
  return `${terminalSafeJson(list)}\n`;
}

/** The table: a header and one row per session; a project column when several projects are shown. */
export function renderSessionsTable(placed: readonly PlacedRow[], paint: Paint): string {
  if (placed.length === 0) return 'no sessions found\n';
  const showProject = new Set(placed.map((p) => p.row.projectDir)).size > 1;
  const cells = placed.map(({ row, depth }) => {
    const marker = depth === 0 ? '' : `${'  '.repeat(depth - 1)}↳ `;
    return {
      session: escapeForTerminal((row.sessionId ?? '-').slice(0, 8)),
      project: cut(escapeForTerminal(row.projectFolderName), 30),
      title: marker + cut(escapeForTerminal(row.title), Math.max(8, TITLE_WIDTH - Array.from(marker).length)),
      last: dateTime(row.lastTime),
      records: row.records.toLocaleString('en-US'),
      fidelity: percent(row.fidelity),
      score: row.score.toFixed(2),
      errors: String(row.errors),
      warnings: String(row.warnings),
      row,
    };
  });
  const header = {
    session: 'session',
    project: 'project',
    title: 'title',
    last: 'last activity (UTC)',
    records: 'records',
    fidelity: 'fidelity',
    score: 'score',
    errors: 'errors',
    warnings: 'warnings',
  };
  const w = (k: keyof typeof header): number =>
    Math.max(Array.from(header[k]).length, ...cells.map((c) => Array.from(c[k]).length));
  const widths = {
    session: w('session'),
    project: w('project'),
    title: w('title'),
    last: w('last'),
    records: w('records'),
    fidelity: w('fidelity'),
    score: w('score'),
    errors: w('errors'),
    warnings: w('warnings'),
  };
  const line = (c: typeof header, style: (k: keyof typeof header, text: string) => string): string =>
    [
      style('session', pad(c.session, widths.session)),
      ...(showProject ? [style('project', pad(c.project, widths.project))] : []),
      style('title', pad(c.title, widths.title)),
      style('last', pad(c.last, widths.last)),
      style('records', padStart(c.records, widths.records)),
      style('fidelity', padStart(c.fidelity, widths.fidelity)),
      style('score', padStart(c.score, widths.score)),
      style('errors', padStart(c.errors, widths.errors)),
      style('warnings', padStart(c.warnings, widths.warnings)),
    ]
      .join('  ')
      .trimEnd();
  const out = [line(header, (_k, text) => paint('bold', text))];
  for (const c of cells) {
    out.push(
      line(c, (k, text) => {
        if (k === 'session') return paint('yellow', text);
        if (k === 'fidelity' && c.row.fidelity < 1) return paint('red', text);
        if (k === 'score' && c.row.score >= 0.5) return paint('red', text);
        if (k === 'errors' && c.row.errors > 0) return paint('red', text);
        if (k === 'warnings' && c.row.warnings > 0) return paint('yellow', text);
        return text;
      }),
    );
  }
  return `${out.join('\n')}\n`;
}

export interface SessionsRun {
  readonly rows: SessionRow[];
  readonly unreadableExplicit: boolean;
}

/** Discovers and lints like `check` (every rule, the config's severities and ignores) and folds each group into a row. */
export function runSessions(paths: readonly string[], io: Io, settings: { readonly cache?: boolean | undefined } = {}): SessionsRun {
  const { lint, ignore } = runConfig(io, undefined, []);
  const { inputs } = resolveInputs(paths, io);
  const config = settings.cache === true ? openCache(io.env, io.cwd, defaultProjectsRoot(io.env), inputs, lint, 'sessions') : undefined;
  const discovery = discover(inputs, io.cwd, { ignore });
  reportIgnored(io, discovery.ignoredExplicit);
  let unreadableExplicit = false;
  for (const problem of discovery.problems) {
    note(io, problem.message);
    if (problem.explicit) unreadableExplicit = true;
  }
  const registry = new ProjectRegistry(discovery.projectFiles);
  // Display paths in results and notes depend on the working folder.
  const cache = groupCache(config, 'sessions', discovery.groups, discovery.projectFiles, io.cwd, (v: { outcome: GroupOutcome; facts: FileFacts[] }) => v.outcome.failures.length === 0, (m) => say(m));
  const options = lint;
  const progress = progressLine(io);
  // A note during the walk starts on a clean line.
  const say = (message: string): void => {
    progress.done();
    note(io, message);
  };
  const rows: SessionRow[] = [];
  const total = discovery.groups.length;
  discovery.groups.forEach((group, i) => {
    progress.update(() => `cclint: reading session ${i + 1} of ${total.toLocaleString('en-US')}…`);
    const { outcome, facts } = cache.group(group, (indexer) => {
      const facts: FileFacts[] = [];
      const linted = lintGroup(group, options, registry, (index) => facts.push(factsOf(index)), indexer);
      return { outcome: { results: linted.results.map(plainResult), failures: linted.failures }, facts };
    });
    for (const failure of outcome.failures) {
      say(failure.message);
      if (paths.some((p) => failure.path.endsWith(p) || p.endsWith(failure.path))) unreadableExplicit = true;
    }
    // A file that is not a transcript is no session: said once, and left out.
    const results: FileResult[] = [];
    const sessionFacts: FileFacts[] = [];
    outcome.results.forEach((result, at) => {
      const fileFacts = facts[at] as FileFacts;
      if (fileFacts.notTranscript === undefined) {
        results.push(result);
        sessionFacts.push(fileFacts);
        return;
      }
      say(`${result.filePath}: ${describeNotTranscript(fileFacts.notTranscript)}; skipped`);
      if (group.files.some((f) => f.displayPath === result.filePath && f.explicit === true)) unreadableExplicit = true;
    });
    const row = rowOf(results, sessionFacts, group.projectDir, group.files[0]?.projectFolderName ?? '');
    if (row !== undefined) rows.push(row);
  });
  progress.done();
  return { rows, unreadableExplicit };
}

export function sessionsCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('sessions')
    .description('one row per session, newest first: title, last activity, records, resume fidelity, score, findings')
    .argument('[paths...]', 'session files, project folders or a projects root (default: the local Claude Code projects folder)')
    .addOption(new Option('-f, --format <name>', 'output format').choices(['table', 'json']).default('table'))
    .option('--no-color', 'no colour, even on a terminal (NO_COLOR is honoured too)')
    .option('--sort <column>', `order the rows by a column (${SORT_COLUMNS.join(', ')}), :asc or :desc to choose the direction`, parseSort)
    .option('--broken', 'only sessions with something wrong: an error or warning, a resume loss, a corruption score above 0')
    .option('-o, --output-file <file>', 'write the report to this file instead of stdout (folders are created)')
    .option('--cache', 'remember what was read under $CCLINT_HOME/cache; a project folder in which nothing changed is not read again')
    .addHelpText(
      'after',
      `
Subagent files count with their session. A session that continues another (same slug,
copied records of the other session, or a continued-in record) is listed under it, marked ↳.
Fidelity is the share of the conversation \`claude --resume\` loads; score is the corruption
likelihood (0 healthy, 1 broken); errors and warnings are \`cclint check\`'s findings.

--sort orders the rows in a flat list, each column its own way unless :asc or :desc says
otherwise: last activity, records, score, errors and warnings highest first, fidelity lowest
first, session, project and title A to Z.

Examples:
  cclint sessions                                  every session under ~/.claude/projects
  cclint sessions ~/.claude/projects/-home-me-app  one project
  cclint sessions --broken --sort score            only sessions with a problem, most likely corrupted first
  cclint sessions --sort last:asc                  oldest activity first
  cclint sessions --format json                    [{sessionId, title, lastActivity, records, fidelity, score, errors, warnings, continues}]

Exit codes: 0 (a report, whatever it finds), 2 when a named path cannot be read, is not a
transcript, or holds no session file.`,
    )
    .action(
      (
        paths: string[],
        options: { format: 'table' | 'json'; color?: boolean; sort?: SortOrder; broken?: boolean; outputFile?: string; cache?: boolean },
      ) => {
        if (options.outputFile !== undefined) checkWritableTarget(`--output-file ${options.outputFile}`, path.resolve(io.cwd, options.outputFile));
        const run = runSessions(paths, io, { cache: options.cache });
        const rows = options.broken === true ? run.rows.filter(isBroken) : run.rows;
        const placed = options.sort === undefined ? placeRows(rows) : sortPlaced(placeRows(rows), options.sort);
        const color = options.outputFile === undefined && useColor(io.stdout, io.env, options.color);
        const text =
          options.format === 'json'
            ? sessionsJson(placed)
            : placed.length === 0 && options.broken === true && run.rows.length > 0
              ? `no session with something wrong among ${run.rows.length.toLocaleString('en-US')}\n`
              : renderSessionsTable(placed, painter(color));
        writeReport(io, text, options.outputFile);
        setExit(run.unreadableExplicit ? 2 : 0);
      },
    );
}
