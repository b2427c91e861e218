/**
 * Turns one physical line into records, or explains why it cannot.
 *
 * Claude Code skips any line that does not parse (format.md §3), so every bad
 * line is a silent loss. The classification here names the cause users
 * actually hit (peers.md §3 row 6): a write torn by a crash, NUL padding left
 * by delayed allocation, two records glued together when a newline was lost,
 * JSON that is not an object, or plain garbage. When the intended record(s)
 * can be recovered unambiguously, they are returned too, so that the rest of
 * the linter sees the conversation as it was meant to be and reports the
 * bad line once, not as a cascade of broken links.
 */
import type { JsonObject } from './types.js';

export type InvalidReason = 'torn' | 'nul' | 'glued' | 'not-object' | 'garbage' | 'too-long' | 'bom';

export interface ParsedLine {
  readonly records: readonly JsonObject[];
  /** Present when the line is not exactly one JSON object. */
  readonly invalid?: InvalidReason | undefined;
  /**
   * How the records were recovered from a damaged line: `leading` when only
   * leading NUL/space bytes stood in the way (readers that skip leading
   * control bytes, like the SDK's, still load it), `strip` when NULs had to
   * be removed elsewhere, `split` for glued records.
   */
  readonly recovered?: 'leading' | 'strip' | 'split' | undefined;
}

const MAX_GLUE_ATTEMPTS = 64;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The line's one JSON object, or undefined when it is not exactly one (no diagnosis: see {@link parseLine}). */
export function parseObject(text: string): JsonObject | undefined {
  const value = tryParse(text);
  return isObject(value) ? value : undefined;
}

/** Splits `{…}{…}` when every piece parses as an object on its own. */
export function splitGlued(text: string): JsonObject[] | undefined {
  const pieces: JsonObject[] = [];
  let start = 0;
  let from = 0;
  let attempts = 0;
  for (;;) {
    const seam = text.indexOf('}{', from);
    if (seam === -1) break;
    if (++attempts > MAX_GLUE_ATTEMPTS) return undefined;
    const head = tryParse(text.slice(start, seam + 1));
    if (isObject(head)) {
      pieces.push(head);
      start = seam + 1;
    }
    from = seam + 1;
  }
  if (pieces.length === 0) return undefined;
  const tail = tryParse(text.slice(start));
  if (!isObject(tail)) return undefined;
  pieces.push(tail);
  return pieces;
}

const EMPTY: readonly JsonObject[] = [];

/**
 * `text` is the line without its line ending; `undefined` when it was too
 * long to decode. `terminated` is false only for a last line without `\n`.
 */
export function parseLine(text: string | undefined, terminated: boolean): ParsedLine | undefined {
  if (text === undefined) return { records: EMPTY, invalid: 'too-long' };
  // Fast path: the overwhelmingly common case is one object per line.
  const value = tryParse(text);
  if (value !== undefined) {
    if (isObject(value)) return { records: [value] };
    return { records: EMPTY, invalid: 'not-object' };
  }
  if (text.trim() === '') return undefined; // blank lines are ignored by Claude Code too

  let candidate = text;
  if (text.includes('\u0000')) {
    candidate = text.replace(/\u0000+/g, '');
    if (candidate.trim() === '') return { records: EMPTY, invalid: 'nul' };
    const stripped = tryParse(candidate);
    if (isObject(stripped)) {
      const leadingOnly = isObject(tryParse(text.replace(/^[\u0000-\u0020]+/, '')));
      return { records: [stripped], invalid: 'nul', recovered: leadingOnly ? 'leading' : 'strip' };
    }
  }
  const glued = candidate.includes('}{') ? splitGlued(candidate) : undefined;
  if (glued !== undefined) return { records: glued, invalid: 'glued', recovered: 'split' };
  if (!terminated) return { records: EMPTY, invalid: 'torn' };
  return { records: EMPTY, invalid: 'garbage' };
}
