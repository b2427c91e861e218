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
import { countText } from '../core/count-text.js';

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

/** Characters a terminal shows in no column of their own: combining marks, joiners, variation selectors. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\u200b-\u200f\ufe00-\ufe0f]$/u;
/** Characters shown as emoji by default, two columns wide. */
const EMOJI = /^\p{Emoji_Presentation}$/u;

/**
 * How many columns a terminal gives one code point: none for a combining
 * mark, a joiner or a variation selector; two for an East Asian wide or
 * full-width character (CJK, kana, hangul, full-width forms) and an emoji
 * shown as one; one for anything else.
 */
function codePointColumns(char: string): number {
  const cp = char.codePointAt(0) as number;
  if (cp < 0x300) return 1;
  if (ZERO_WIDTH.test(char)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd) ||
    EMOJI.test(char)
  ) {
    return 2;
  }
  return 1;
}

/** How many terminal columns `text` takes (see {@link codePointColumns}). */
export function columns(text: string): number {
  let n = 0;
  for (const char of text) n += codePointColumns(char);
  return n;
}

/** At most `width` terminal columns, ending in `…` when cut. */
export function cut(text: string, width: number): string {
  if (columns(text) <= width) return text;
  if (width <= 1) return '…'.slice(0, Math.max(0, width));
  let kept = '';
  let used = 0;
  for (const char of text) {
    const w = codePointColumns(char);
    if (used + w > width - 1) break;
    kept += char;
    used += w;
  }
  return `${kept.trimEnd()}…`;
}

/** Pads to `width` terminal columns (left-aligned). */
export function pad(text: string, width: number): string {
  const length = columns(text);
  return length >= width ? text : text + ' '.repeat(width - length);
}

/** Pads to `width` terminal columns (right-aligned). */
export function padStart(text: string, width: number): string {
  const length = columns(text);
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
  return `${countText(n)} ${n === 1 ? word : many}`;
}
