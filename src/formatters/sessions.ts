/**
 * Renders the session table view model (src/core/views/sessions.ts) for a
 * terminal and as JSON. Every transcript string is escaped.
 */
import type { PlacedRow } from '../core/views/sessions.js';
import { escapeForTerminal, terminalSafeJson } from '../escape.js';
import { type Paint, columns, cut, dateTime, pad, padStart, percent } from './text.js';
import { countText } from '../core/count-text.js';

/** Title characters shown in the table (indent and `↳` included). */
export const TITLE_WIDTH = 40;

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
    apiValid: row.apiValid ?? null,
    score: row.score,
    errors: row.errors,
    warnings: row.warnings,
    continues: continues ?? null,
  }));
  return `${terminalSafeJson(list)}\n`;
}

/** What the `api` column says: `400` when the first request after resuming would be rejected. */
export function apiCell(apiValid: boolean | undefined): string {
  return apiValid === false ? '400' : '';
}

/**
 * The table: a header and one row per session; a project column when
 * several projects are shown, an `api` column (`400`) when some session's
 * resumed request would be rejected by the API.
 */
export function renderSessionsTable(placed: readonly PlacedRow[], paint: Paint): string {
  if (placed.length === 0) return 'no sessions found\n';
  const showProject = new Set(placed.map((p) => p.row.projectDir)).size > 1;
  const showApi = placed.some((p) => p.row.apiValid === false);
  const cells = placed.map(({ row, depth }) => {
    const marker = depth === 0 ? '' : `${'  '.repeat(depth - 1)}↳ `;
    return {
      session: escapeForTerminal((row.sessionId ?? '-').slice(0, 8)),
      project: cut(escapeForTerminal(row.projectFolderName), 30),
      title: marker + cut(escapeForTerminal(row.title), Math.max(8, TITLE_WIDTH - columns(marker))),
      last: dateTime(row.lastTime),
      records: countText(row.records),
      fidelity: percent(row.fidelity),
      api: apiCell(row.apiValid),
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
    api: 'api',
    score: 'score',
    errors: 'errors',
    warnings: 'warnings',
  };
  const w = (k: keyof typeof header): number =>
    Math.max(columns(header[k]), ...cells.map((c) => columns(c[k])));
  const widths = {
    session: w('session'),
    project: w('project'),
    title: w('title'),
    last: w('last'),
    records: w('records'),
    fidelity: w('fidelity'),
    api: w('api'),
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
      ...(showApi ? [style('api', padStart(c.api, widths.api))] : []),
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
        if (k === 'api' && c.row.apiValid === false) return paint('red', text);
        if (k === 'score' && c.row.score >= 0.5) return paint('red', text);
        if (k === 'errors' && c.row.errors > 0) return paint('red', text);
        if (k === 'warnings' && c.row.warnings > 0) return paint('yellow', text);
        return text;
      }),
    );
  }
  return `${out.join('\n')}\n`;
}
