/**
 * Renders search results (src/core/views/search.ts): for a terminal, one
 * block per session (title, time, the resume command, a line per hit with
 * the match highlighted); as JSON, one object per session in a streamed
 * array. Every transcript string is escaped.
 */
import type { HitPlace, SessionHits } from '../core/views/search.js';
import { escapeForTerminal, terminalSafeJson } from '../escape.js';
import { type Paint, dateTime } from './text.js';
import { countText } from '../core/count-text.js';

/** Hits listed per session before `… N more`. */
export const HITS_SHOWN = 5;

const PLACE_LABEL: Readonly<Record<HitPlace, string>> = {
  resumed: '',
  lost: '[lost on resume] ',
  abandoned: '[abandoned branch] ',
  sidechain: '[sidechain] ',
};

/** One session's block of the text output. */
export function renderSessionHits(s: SessionHits, paint: Paint): string {
  const out: string[] = [
    `${paint('bold', escapeForTerminal(s.title))}  ${paint('dim', `${escapeForTerminal(s.sessionId)} · last activity ${dateTime(s.lastTime)} UTC`)}`,
    `  ${paint('cyan', escapeForTerminal(s.command))}`,
  ];
  for (const h of s.hits.slice(0, HITS_SHOWN)) {
    const label = PLACE_LABEL[h.place];
    out.push(
      `  ${paint('dim', dateTime(h.time))}  ${escapeForTerminal(h.type).padEnd(9)}  ${label === '' ? '' : paint('yellow', label)}` +
        `${escapeForTerminal(h.before)}${paint(['red', 'bold'], escapeForTerminal(h.match))}${escapeForTerminal(h.after)}`,
    );
  }
  if (s.hits.length > HITS_SHOWN) out.push(paint('dim', `  … ${countText(s.hits.length - HITS_SHOWN)} more in this session`));
  return `${out.join('\n')}\n\n`;
}

/** One session as a JSON object (an element of the streamed array). */
export function sessionHitsJson(s: SessionHits): string {
  return terminalSafeJson({
    sessionId: s.sessionId,
    filePath: s.filePath,
    title: s.title,
    cwd: s.cwd ?? null,
    lastActivity: Number.isNaN(s.lastTime) ? null : new Date(s.lastTime).toISOString(),
    command: s.command,
    hits: s.hits.map((h) => ({
      uuid: h.uuid ?? null,
      type: h.type,
      timestamp: Number.isNaN(h.time) ? null : new Date(h.time).toISOString(),
      filePath: h.filePath,
      line: h.line,
      place: h.place,
      excerpt: `${h.before}${h.match}${h.after}`,
      match: { start: h.before.length, end: h.before.length + h.match.length },
    })),
  });
}
