/**
 * Unified diffs for `fix --dry-run` and the interactive prompt. Transcript
 * lines are long JSON records full of private content, so the diff shows a
 * record only through the fields that change (plus its uuid to find it);
 * other lines are cut to a short prefix. The patch structure itself comes
 * from the `diff` package.
 */
import { formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import { type ByteSource, readFully } from '../core/reader.js';
import type { RecordEdit } from '../core/types.js';
import type { Rewrite } from './rewrite.js';

const CONTEXT_CHARS = 80;
const VALUE_CHARS = 60;

type Obj = Record<string, unknown>;

/** The JSON object a line holds, or undefined for anything else. */
export function parseObject(line: string): Obj | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
  } catch {
    return undefined;
  }
}

/** A value's JSON, cut to a short excerpt that says how long it was. */
export function shortValue(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > VALUE_CHARS ? `${text.slice(0, VALUE_CHARS)}…(${text.length} chars)` : text;
}

function cut(line: string): string {
  const printable = line.replace(/\u0000/g, '\\0');
  return printable.length > CONTEXT_CHARS ? `${printable.slice(0, CONTEXT_CHARS)}…(${line.length} chars)` : printable;
}

/** `{"uuid":…, "changedKey":value, …N more}` for one side of a changed record. */
function elide(obj: Obj, keys: readonly string[]): string {
  const shown = keys.filter((k) => k in obj);
  const parts = shown.map((k) => `${JSON.stringify(k)}:${shortValue(obj[k])}`);
  if ('uuid' in obj && !shown.includes('uuid')) parts.unshift(`"uuid":${shortValue(obj.uuid)}`);
  const rest = Object.keys(obj).length - parts.length;
  return `{${parts.join(',')}${rest > 0 ? `, …${rest} more` : ''}}`;
}

function changedKeys(a: Obj, b: Obj): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

/** Rewrites a hunk's lines so paired -/+ records show only what changed. */
function shortenHunkLines(lines: readonly string[]): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as string;
    if (!line.startsWith('-')) {
      out.push(line.startsWith('+') ? `+${cut(line.slice(1))}` : `${line[0] ?? ' '}${cut(line.slice(1))}`);
      i++;
      continue;
    }
    // A run of removals followed by a run of additions: pair them up.
    const removed: string[] = [];
    while (i < lines.length && (lines[i] as string).startsWith('-')) removed.push((lines[i++] as string).slice(1));
    const added: string[] = [];
    while (i < lines.length && (lines[i] as string).startsWith('+')) added.push((lines[i++] as string).slice(1));
    const pairs = Math.min(removed.length, added.length);
    for (let k = 0; k < removed.length; k++) {
      const before = removed[k] as string;
      const after = k < pairs ? (added[k] as string) : undefined;
      const a = parseObject(before);
      const b = after === undefined ? undefined : parseObject(after);
      out.push(`-${a !== undefined && b !== undefined ? elide(a, changedKeys(a, b)) : cut(before)}`);
    }
    for (let k = 0; k < added.length; k++) {
      const after = added[k] as string;
      const before = k < pairs ? (removed[k] as string) : undefined;
      const b = parseObject(after);
      const a = before === undefined ? undefined : parseObject(before);
      out.push(`+${a !== undefined && b !== undefined ? elide(b, changedKeys(a, b)) : b !== undefined ? elide(b, ['parentUuid', 'type']) : cut(after)}`);
    }
  }
  return out;
}

const SCAN = 64 * 1024;

/** Bytes `[from, to)` of a source. */
function readRange(source: ByteSource, from: number, to: number): Buffer {
  const out = Buffer.alloc(Math.max(0, to - from));
  return out.subarray(0, readFully(source, out, 0, out.length, from));
}

/** Where the line holding byte `position` starts (`position` itself at a line start). */
function lineStartOf(source: ByteSource, position: number): number {
  let end = position;
  while (end > 0) {
    const from = Math.max(0, end - SCAN);
    const at = readRange(source, from, end).lastIndexOf(0x0a);
    if (at !== -1) return from + at + 1;
    end = from;
  }
  return 0;
}

/** Where the line holding byte `position` ends: past its `\n`, or at `size`. */
function lineEndOf(source: ByteSource, position: number, size: number): number {
  for (let from = position; from < size; from += SCAN) {
    const at = readRange(source, from, Math.min(size, from + SCAN)).indexOf(0x0a);
    if (at !== -1) return from + at + 1;
  }
  return size;
}

/** Whether `position` is the start of a line (or the end of the file). */
function atLineStart(source: ByteSource, position: number, size: number): boolean {
  return position === 0 || position >= size || readRange(source, position - 1, position)[0] === 0x0a;
}

/** Lines in a text that starts at a line start: its `\n`s, and a last line without one. */
function lineCount(text: Buffer): number {
  let n = 0;
  for (let at = text.indexOf(0x0a); at !== -1; at = text.indexOf(0x0a, at + 1)) n++;
  return text.length > 0 && text[text.length - 1] !== 0x0a ? n + 1 : n;
}

/**
 * The structured patch of a planned rewrite against the bytes it was
 * planned from (`original`, its first `size` bytes), one line of context.
 * Computed from the rewrite's pieces: each run of changed bytes, widened to
 * whole lines and a line of context on each side (runs whose windows touch
 * are merged), is diffed on its own; the rest of the file is never turned
 * into strings, so the diff of a 1 GB session costs memory for what
 * changed, and one read of the file to number its lines.
 */
export function rewritePatch(displayPath: string, original: ByteSource, size: number, rewrite: Rewrite): StructuredPatch {
  const label = displayPath.replace(/^\/+/, '');
  const patch: StructuredPatch = { oldFileName: `a/${label}`, newFileName: `b/${label}`, oldHeader: undefined, newHeader: undefined, hunks: [] };
  // Windows in the original's bytes: the changed lines and a line of context on each side.
  const windows: Array<[number, number]> = [];
  for (const change of rewrite.changes(size)) {
    const first = lineStartOf(original, change.oldFrom);
    const from = first > 0 ? lineStartOf(original, first - 1) : 0;
    const last = atLineStart(original, change.oldTo, size) ? change.oldTo : lineEndOf(original, change.oldTo, size);
    const to = last < size ? lineEndOf(original, last, size) : size;
    const previous = windows[windows.length - 1];
    if (previous !== undefined && from <= previous[1]) previous[1] = Math.max(previous[1], to);
    else windows.push([from, to]);
  }
  // Where an unchanged byte of the original is in the new bytes (window edges are unchanged bytes, or the ends).
  const kept: Array<{ start: number; end: number; at: number }> = [];
  let position = 0;
  for (const piece of rewrite.pieces) {
    const length = piece.kind === 'new' ? piece.bytes.length : piece.end - piece.start;
    if (piece.kind === 'kept') kept.push({ start: piece.start, end: piece.end, at: position });
    position += length;
  }
  const newPosition = (p: number, edge: 'from' | 'to'): number => {
    if (p === 0 && edge === 'from') return 0;
    if (p >= size && edge === 'to') return rewrite.size;
    // The last kept range starting at or before p (before p, for a window's end), by binary search.
    let lo = 0;
    let hi = kept.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const start = (kept[mid] as (typeof kept)[number]).start;
      if (edge === 'from' ? start <= p : start < p) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    const piece = kept[found];
    if (piece === undefined || (edge === 'from' ? p >= piece.end : p > piece.end)) {
      throw new Error(`rewritePatch: byte ${p} of the original is not kept`);
    }
    return piece.at + (p - piece.start);
  };
  let counted = 0; // bytes of the original whose lines are counted
  let lines = 0; // lines before `counted`
  let shift = 0; // new line number minus old line number, after the windows so far
  for (const [from, to] of windows) {
    for (let at = counted; at < from; at += SCAN) {
      const chunk = readRange(original, at, Math.min(from, at + SCAN));
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, nl + 1)) lines++;
    }
    counted = from;
    const oldBytes = readRange(original, from, to);
    const newFrom = newPosition(from, 'from');
    const newBytes = Buffer.alloc(newPosition(to, 'to') - newFrom);
    rewrite.read(original, newBytes, 0, newBytes.length, newFrom);
    const local = structuredPatch('a', 'b', oldBytes.toString('utf8'), newBytes.toString('utf8'), undefined, undefined, { context: 1 });
    for (const h of local.hunks) {
      // An empty side's start is the line before (0 at the top): shift by the window's first line either way.
      patch.hunks.push({ ...h, oldStart: h.oldStart + lines, newStart: h.newStart + lines + shift });
    }
    shift += lineCount(newBytes) - lineCount(oldBytes);
  }
  return patch;
}

/** A unified diff for people: headers and hunks, long records shortened. */
export function renderPatch(patch: StructuredPatch): string {
  if (patch.hunks.length === 0) return '';
  return formatPatch({ ...patch, hunks: patch.hunks.map((h) => ({ ...h, lines: shortenHunkLines(h.lines) })) });
}

/** Adds colour to a rendered diff (only on a terminal). */
export function colorDiff(text: string, paint: (style: 'red' | 'green' | 'cyan' | 'bold', s: string) => string): string {
  return text
    .split('\n')
    .map((line) => {
      if (line.startsWith('+++') || line.startsWith('---')) return paint('bold', line);
      if (line.startsWith('@@')) return paint('cyan', line);
      if (line.startsWith('+')) return paint('green', line);
      if (line.startsWith('-')) return paint('red', line);
      return line;
    })
    .join('\n');
}

interface Change {
  /** First old line the change replaces, or the old line it is inserted before. */
  readonly start: number;
  readonly removed: readonly string[];
  readonly added: readonly string[];
}

/**
 * The unified diff of one fix's edits at their real line numbers, with
 * `context` lines of the file around each change, so the interactive prompt
 * shows the same hunk headers as `--dry-run` without reading the whole file.
 * `lineText(n)` gives old line n (1-based); `lineCount` is the old file's.
 */
export function editsPatch(
  displayPath: string,
  edits: readonly RecordEdit[],
  lineText: (line: number) => string,
  lineCount: number,
  context = 1,
): StructuredPatch {
  const label = displayPath.replace(/^\/+/, '');
  const changes: Change[] = edits
    .map((edit, order) => ({ edit, order }))
    .sort((a, b) => changeStart(a.edit) - changeStart(b.edit) || a.order - b.order)
    .map(({ edit }) => ({
      start: changeStart(edit),
      removed: edit.kind === 'insertAfter' ? [] : [edit.before],
      added: edit.kind === 'delete' ? [] : edit.after,
    }));
  const hunks: StructuredPatch['hunks'] = [];
  let shift = 0; // new line number minus old line number, after the changes so far
  let i = 0;
  while (i < changes.length) {
    const first = changes[i] as Change;
    const oldStart = Math.max(1, first.start - context);
    const newStart = oldStart + shift;
    const lines: string[] = [];
    for (let n = oldStart; n < first.start; n++) lines.push(` ${lineText(n)}`);
    let end = first.start; // the first old line after the changes of this hunk
    while (i < changes.length) {
      const change = changes[i] as Change;
      if (change.start > end + 2 * context && lines.length > 0 && change !== first) break;
      for (let n = end; n < change.start; n++) lines.push(` ${lineText(n)}`);
      for (const text of change.removed) lines.push(`-${text}`);
      for (const text of change.added) lines.push(`+${text}`);
      end = Math.max(end, change.start + change.removed.length);
      shift += change.added.length - change.removed.length;
      i++;
    }
    for (let n = end; n < Math.min(end + context, lineCount + 1); n++) lines.push(` ${lineText(n)}`);
    const oldLines = lines.filter((l) => !l.startsWith('+')).length;
    const newLines = lines.filter((l) => !l.startsWith('-')).length;
    hunks.push({ oldStart, oldLines, newStart, newLines, lines });
  }
  return { oldFileName: `a/${label}`, newFileName: `b/${label}`, oldHeader: undefined, newHeader: undefined, hunks };
}

function changeStart(edit: RecordEdit): number {
  return edit.kind === 'insertAfter' ? edit.line + 1 : edit.line;
}
