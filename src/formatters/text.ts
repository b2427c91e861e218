/**
 * Small pure text helpers shared by the terminal renderers (`show`, `tree`, `sessions`, `search`): one-line
 * excerpts, width cuts, UTC clock times, percentages and optional colour.
 * Whatever they print of a transcript goes through escapeForTerminal.
 */
import { styleText } from 'node:util';
import { escapeForTerminal } from '../escape.js';
import { flatten } from '../core/views/text.js';
import type { RecordSummary } from '../core/records.js';
import { isToolResultOnly } from '../core/records.js';

export type Style = Parameters<typeof styleText>[0];
export type Paint = (style: Style, text: string) => string;

/** Colour through `node:util` styleText when enabled; the text as is otherwise. */
export function painter(enabled: boolean): Paint {
  // validateStream: false — the caller already decided (useColor) for its own stream.
  return enabled ? (style, text) => styleText(style, text, { validateStream: false }) : (_style, text) => text;
}

export { flatten };

/**
 * Text on one line, for a terminal: {@link flatten}ed, and every other
 * character that would act on the terminal shown as a visible escape.
 */
export function oneLine(text: string): string {
  return escapeForTerminal(flatten(text));
}

/** At most `width` characters (code points), ending in `…` when cut. */
export function cut(text: string, width: number): string {
  const chars = Array.from(text);
  if (chars.length <= width) return text;
  if (width <= 1) return '…'.slice(0, Math.max(0, width));
  return `${chars.slice(0, width - 1).join('').trimEnd()}…`;
}

/** Pads to `width` code points (left-aligned). */
export function pad(text: string, width: number): string {
  const length = Array.from(text).length;
  return length >= width ? text : text + ' '.repeat(width - length);
}

/** Pads to `width` code points (right-aligned). */
export function padStart(text: string, width: number): string {
  const length = Array.from(text).length;
  return length >= width ? text : ' '.repeat(width - length) + text;
}

/** `HH:MM:SS` in UTC, or `--:--:--` without a readable timestamp. */
export function clock(time: number): string {
  return Number.isNaN(time) ? '--:--:--' : new Date(time).toISOString().slice(11, 19);
}

/** How a listing prints its times: a clock when they all fall on one UTC day, else date and clock. */
export interface TimeColumn {
  readonly width: number;
  format(time: number): string;
}

/** `HH:MM:SS` for times within one UTC day; `YYYY-MM-DD HH:MM:SS` once they span days. */
export function timeColumn(times: Iterable<number>): TimeColumn {
  let day: string | undefined;
  let spansDays = false;
  for (const time of times) {
    if (Number.isNaN(time)) continue;
    const date = new Date(time).toISOString().slice(0, 10);
    if (day === undefined) day = date;
    else if (date !== day) {
      spansDays = true;
      break;
    }
  }
  if (!spansDays) return { width: 8, format: clock };
  return {
    width: 19,
    format: (time) => (Number.isNaN(time) ? '---------- --:--:--' : new Date(time).toISOString().replace('T', ' ').slice(0, 19)),
  };
}

/** `YYYY-MM-DD HH:MM` in UTC, or `-`. */
export function dateTime(time: number): string {
  if (Number.isNaN(time)) return '-';
  const iso = new Date(time).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/** `100%` only for a whole conversation; otherwise rounded down, so a loss never shows as 100%. */
export function percent(fraction: number): string {
  const tenths = Math.floor(fraction * 1000 + 1e-9) / 10;
  return Number.isInteger(tenths) ? `${tenths}%` : `${tenths.toFixed(1)}%`;
}

/**
 * What a person sees of a chain row on one line, at most `width` characters:
 * its text (or a placeholder for rows without any), then the tools an
 * assistant row calls, which survive the cut.
 */
export function rowText(r: RecordSummary, width: number): string {
  let text = oneLine(r.excerpt);
  if (text === '') {
    if (isToolResultOnly(r)) text = '[tool result]';
    else if (r.type === 'system') text = r.subtype !== undefined ? `[${escapeForTerminal(r.subtype)}]` : '';
    else if (r.type === 'attachment') text = r.attachmentType !== undefined ? `[${escapeForTerminal(r.attachmentType)}]` : '';
    else if (r.bodyMalformed) text = '[unreadable body]';
    else if (r.type === 'assistant' && r.toolUseIds.length === 0) text = '[no text]';
  } else if (r.type === 'system' && r.subtype !== undefined) {
    text = `[${escapeForTerminal(r.subtype)}] ${text}`;
  }
  if (r.type !== 'assistant' || r.toolUseIds.length === 0) return cut(text, width);
  const tools = `→ ${r.toolNames.length > 0 ? escapeForTerminal(r.toolNames.join(', ')) : 'tool'}`;
  if (text === '') return cut(tools, width);
  const room = width - Array.from(tools).length - 1;
  return room >= 12 ? `${cut(text, room)} ${tools}` : cut(`${text} ${tools}`, width);
}

/** `n thing` / `n things`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}
