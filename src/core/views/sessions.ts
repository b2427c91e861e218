/**
 * The session table as a view model: one row per session (title, last
 * activity, records, resume fidelity, corruption score, findings), how
 * continuations are placed under their origin, and the orders `--sort`
 * gives. Built here once; the terminal table, the JSON list and the HTML
 * report (src/formatters/) each draw it. Pure: no I/O, no colour.
 */
import { type RecordSummary, INTERRUPT_MARKER } from '../records.js';
import type { SessionIndex } from '../session-index.js';
import { type NotTranscript, notTranscript } from '../transcript.js';
import type { FileResult } from '../types.js';
import { flatten } from './text.js';

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
  /** Whether the first request after `claude --resume` passes the Messages API's rules (undefined: not judged). */
  readonly apiValid?: boolean | undefined;
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
    apiValid: mainResult.resume?.apiValid,
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
export const SORT_COLUMNS = ['session', 'project', 'title', 'last', 'records', 'fidelity', 'api', 'score', 'errors', 'warnings'] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

export interface SortOrder {
  readonly column: SortColumn;
  readonly descending: boolean;
}

/**
 * Each column's own direction: trouble and recent activity first (highest
 * score, errors, warnings, records; lowest fidelity; newest), names A to Z.
 */
export const DESCENDING_BY_DEFAULT: Readonly<Record<SortColumn, boolean>> = {
  session: false,
  project: false,
  title: false,
  last: true,
  records: true,
  fidelity: false,
  api: true,
  score: true,
  errors: true,
  warnings: true,
};


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
    case 'api':
      return row.apiValid === false ? 1 : 0;
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
  return row.errors > 0 || row.warnings > 0 || row.fidelity < 1 || row.score > 0 || row.apiValid === false;
}

