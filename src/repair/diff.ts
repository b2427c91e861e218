/**
 * Unified diffs for `fix --dry-run` and the interactive prompt. Transcript
 * lines are long JSON records full of private content, so the diff shows a
 * record only through the fields that change (plus its uuid to find it);
 * other lines are cut to a short prefix. The patch structure itself comes
 * from the `diff` package.
 */
import { formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import type { RecordEdit } from '../core/types.js';

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

/** Byte offsets of each line's start, and one past the end (a line includes its `\n`). */
function lineStarts(bytes: Buffer): number[] {
  const starts = [0];
  for (let at = bytes.indexOf(0x0a); at !== -1; at = bytes.indexOf(0x0a, at + 1)) starts.push(at + 1);
  if (starts[starts.length - 1] !== bytes.length) starts.push(bytes.length);
  return starts;
}

/** How far past a difference the resync search looks, in lines on each side. */
const RESYNC_LINES = 64;

/**
 * The structured patch between two versions of a file, one line of context.
 * Computed per changed region: the two versions are walked line by line
 * (compared as bytes), each run of differing lines is found by resyncing on
 * the next line the two share, and only those regions, with their context,
 * are turned into strings and diffed. Untouched lines of a big session are
 * never copied, so the diff costs memory for what changed, not for the file.
 */
export function filePatch(displayPath: string, before: Buffer, after: Buffer): StructuredPatch {
  const label = displayPath.replace(/^\/+/, '');
  const a = lineStarts(before);
  const b = lineStarts(after);
  const na = a.length - 1;
  const nb = b.length - 1;
  const same = (i: number, j: number): boolean =>
    i < na && j < nb && before.compare(after, b[j] as number, b[j + 1] as number, a[i] as number, a[i + 1] as number) === 0;

  // Changed regions: [i0, i1) of before against [j0, j1) of after.
  const regions: Array<[number, number, number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < na || j < nb) {
    if (same(i, j)) {
      i++;
      j++;
      continue;
    }
    let found: [number, number] | undefined;
    for (let step = 1; step <= 2 * RESYNC_LINES && found === undefined; step++) {
      for (let di = Math.max(0, step - RESYNC_LINES); di <= Math.min(step, RESYNC_LINES); di++) {
        const dj = step - di;
        // A resync point: two lines in a row the same (or the end of both files).
        if ((i + di >= na && j + dj >= nb) || (same(i + di, j + dj) && (same(i + di + 1, j + dj + 1) || (i + di + 1 >= na && j + dj + 1 >= nb)))) {
          found = [i + di, j + dj];
          break;
        }
      }
    }
    const [ni, nj] = found ?? [na, nb];
    regions.push([i, ni, j, nj]);
    i = ni;
    j = nj;
  }

  // Windows: regions with one line of context, merged where they touch.
  const windows: Array<[number, number, number, number]> = [];
  for (const [i0, i1, j0, j1] of regions) {
    const w: [number, number, number, number] = [Math.max(0, i0 - 1), Math.min(na, i1 + 1), Math.max(0, j0 - 1), Math.min(nb, j1 + 1)];
    const last = windows[windows.length - 1];
    if (last !== undefined && w[0] <= last[1]) {
      last[1] = w[1];
      last[3] = w[3];
    } else windows.push(w);
  }

  const hunks: StructuredPatch['hunks'] = [];
  for (const [i0, i1, j0, j1] of windows) {
    const oldText = before.toString('utf8', a[i0] as number, a[i1] as number);
    const newText = after.toString('utf8', b[j0] as number, b[j1] as number);
    const local = structuredPatch('a', 'b', oldText, newText, undefined, undefined, { context: 1 });
    for (const h of local.hunks) {
      // An empty side's start is the line before (0 at the top): shift by the window's first line either way.
      hunks.push({ ...h, oldStart: h.oldStart + i0, newStart: h.newStart + j0 });
    }
  }
  return { oldFileName: `a/${label}`, newFileName: `b/${label}`, oldHeader: undefined, newHeader: undefined, hunks } as StructuredPatch;
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
