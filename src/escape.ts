/**
 * Terminal hygiene for text that comes from a transcript or the file system.
 *
 * A transcript is data someone else may have written: a tool name, a `cwd`,
 * a title, a record type or a file name can hold an escape sequence that
 * recolours, hides or rewrites what the person sees, moves the cursor, sets
 * the window title or, with bidirectional overrides, shows text in another
 * order than it is stored (Trojan Source). Every such string passes
 * {@link escapeForTerminal} before it reaches a human-facing stream, so each
 * of these characters is shown as a visible escape (`\x1b`, `\u202e`)
 * instead of acting on the terminal.
 *
 * The escape is for the eye, not a reversible encoding: a backslash is left
 * alone, so a title that literally reads `\x1b` looks the same as one holding
 * an ESC. Machine formats keep exact values and use {@link terminalSafeJson}.
 */

export interface EscapeOptions {
  /**
   * Leave line feeds, tabs and CRLF pairs as they are, for text printed as
   * several lines. By default they are escaped too: a value shown in a table
   * cell, a one-line message or an annotation must not start a line of its
   * own (a forged `cclint:` line, a workflow command).
   */
  readonly multiline?: boolean | undefined;
}

/**
 * What acts on a terminal instead of printing: C0 controls, DEL, C1 controls
 * (U+009B is a one-character CSI), the line and paragraph separators, the
 * bidirectional embeddings, overrides and isolates, and lone UTF-16
 * surrogates (which cannot be written as UTF-8 and would turn into U+FFFD).
 * With the `u` flag a surrogate range only matches an unpaired half.
 */
const UNSAFE_CLASS = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff';
const UNSAFE_ANY = new RegExp(`[${UNSAFE_CLASS}]`, 'u');
const UNSAFE_ALL = new RegExp(`[${UNSAFE_CLASS}]`, 'gu');
/** As above, but a tab, a line feed and the CR of a CRLF pair pass. */
const UNSAFE_MULTILINE_ALL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]|\r(?!\n)/gu;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every character that would act on a terminal shown as a
 * visible escape: `\x1b` for ESC, `\n` for a line feed, `\u202e` for a
 * right-to-left override, `\ud800` for half a surrogate pair. Printable text
 * of any script, emoji included, passes unchanged, and a string without
 * anything to escape is returned as it is (no copy).
 */
export function escapeForTerminal(text: string, options: EscapeOptions = {}): string {
  if (!UNSAFE_ANY.test(text)) return text;
  return text.replace(options.multiline === true ? UNSAFE_MULTILINE_ALL : UNSAFE_ALL, visible);
}

/**
 * Characters that `JSON.stringify` leaves raw although a terminal may act on
 * them. It already writes C0 controls and lone surrogates as `\u` escapes.
 */
const JSON_RAW_UNSAFE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `JSON.stringify(value, null, indent)` with DEL, C1 controls, the line and
 * paragraph separators and bidirectional controls written as `\u` escapes.
 * JSON outside strings is printable ASCII, so these can only occur inside a
 * string, where the escape stands for the very same character: a parser
 * reads back exactly the value, and a terminal showing the report is safe.
 */
export function terminalSafeJson(value: unknown, indent = 2): string {
  return safeJsonText(JSON.stringify(value, null, indent));
}

function safeJsonText(text: string): string {
  return text.replace(JSON_RAW_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Containers this close to the top are written member by member (a report, its list of files, each file's fields). */
const CHUNKED_DEPTH = 3;

/**
 * {@link terminalSafeJson} of plain data in pieces: the same text, but the
 * top containers are written member by member and a long array below them
 * a run of items at a time, so a report of 200,000 findings is never one
 * string of 80 MB (and its copies).
 */
export function* terminalSafeJsonChunks(value: unknown, indent = 2): Generator<string> {
  // The spaces JSON.stringify indents by: at most ten, whole ones.
  const width = Math.min(10, Math.trunc(indent));
  // Without indentation the text is one line, whose pieces are not worth cutting.
  if (!(width >= 1)) yield terminalSafeJson(value, indent);
  else yield* chunksOf(value, width, 0);
}

/** Members as `JSON.stringify` writes them: skipped in objects, null in arrays. */
function membersOf(value: object): Array<[string | undefined, unknown]> {
  const omitted = (v: unknown): boolean => v === undefined || typeof v === 'function' || typeof v === 'symbol';
  return Array.isArray(value)
    ? value.map((v: unknown) => [undefined, omitted(v) ? null : v])
    : Object.entries(value).filter(([, v]) => !omitted(v));
}

/** A container `JSON.stringify` writes as one (no `toJSON` of its own). */
function containerOf(value: unknown): object | undefined {
  return value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON !== 'function' ? value : undefined;
}

/**
 * Whether `value` holds something too long for one string: an array of
 * more than a run of items, at any depth the pieces reach. Anything else is
 * written with one `JSON.stringify` (a report of 3,000 small results was
 * 100,000 pieces, and twice the time of one string).
 */
function worthCutting(value: unknown, depth: number): boolean {
  const container = containerOf(value);
  if (container === undefined) return false;
  if (Array.isArray(container) && container.length > RUN) return true;
  if (depth >= CHUNKED_DEPTH) return false;
  for (const member of Array.isArray(container) ? container : Object.values(container)) {
    if (worthCutting(member, depth + 1)) return true;
  }
  return false;
}

function* chunksOf(value: unknown, indent: number, depth: number): Generator<string> {
  const container = containerOf(value);
  const members = container !== undefined && depth < CHUNKED_DEPTH && worthCutting(container, depth) ? membersOf(container) : [];
  if (members.length > 0) {
    const [open, close] = Array.isArray(container) ? ['[', ']'] : ['{', '}'];
    const inner = ' '.repeat(indent * (depth + 1));
    yield `${open}\n`;
    for (let i = 0; i < members.length; i++) {
      const [key, member] = members[i] as [string | undefined, unknown];
      yield key === undefined ? inner : `${inner}${safeJsonText(JSON.stringify(key))}: `;
      yield* chunksOf(member, indent, depth + 1);
      yield i < members.length - 1 ? ',\n' : '\n';
    }
    yield `${' '.repeat(indent * depth)}${close}`;
  } else if (Array.isArray(container) && container.length > RUN) {
    yield* arrayChunks(container, indent, depth);
  } else {
    yield shifted(value, indent, depth);
  }
}

/**
 * JSON.stringify's text of a value written at `depth`. JSON.stringify
 * indents from column 0, so the value is written inside `depth` arrays and
 * cut out of them: its nested lines come out indented as they must be,
 * with no second pass over the text to shift them (on a 7.9 MB report that
 * pass was a third of writing it).
 */
function atDepth(value: unknown, indent: number, depth: number): string {
  if (depth === 0) return JSON.stringify(value, null, indent) ?? 'null';
  let wrapped: unknown = value === undefined || typeof value === 'function' || typeof value === 'symbol' ? null : value;
  for (let k = 0; k < depth; k++) wrapped = [wrapped];
  const text = JSON.stringify(wrapped, null, indent);
  // `[\n  [\n    ` before the value and `\n  ]\n]` after it, for depth 2:
  // each wrapper takes a bracket, a line break and its indent on each side.
  let wrappers = 0;
  for (let k = 0; k < depth; k++) wrappers += indent * k + 2;
  return text.slice(wrappers + indent * depth, text.length - wrappers);
}

/** The text of a value at `depth`, terminal-safe. */
function shifted(value: unknown, indent: number, depth: number): string {
  return safeJsonText(atDepth(value, indent, depth));
}

/** Items of a long array per run, each run one JSON.stringify (one call per item cost more than the whole report once did). */
const RUN = 256;

function* arrayChunks(items: readonly unknown[], indent: number, depth: number): Generator<string> {
  yield '[';
  for (let from = 0; from < items.length; from += RUN) {
    // `[\n  a,\n  b\n]` at this depth without its brackets: the items with their separators, one level in.
    const text = atDepth(items.slice(from, from + RUN), indent, depth);
    const body = text.slice(1, text.length - 2 - indent * depth);
    yield `${from === 0 ? '' : ','}${safeJsonText(body)}`;
  }
  yield `\n${' '.repeat(indent * depth)}]`;
}
