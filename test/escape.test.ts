import { describe, expect, it } from 'vitest';
import { escapeForTerminal, terminalSafeJson, terminalSafeJsonChunks } from '../src/escape.js';

/** Every code point a terminal may act on, per class. */
const C0 = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i));
const C1 = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i));
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'];
/** Anything that must never reach a terminal raw. */
const RAW_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;

describe('escapeForTerminal', () => {
  it('shows an ESC sequence, a bell and a C1 CSI as visible escapes', () => {
    expect(escapeForTerminal('\u001b[2J\u001b]0;owned\u0007x\u009b31m')).toBe('\\x1b[2J\\x1b]0;owned\\x07x\\u009b31m');
  });

  it('names line feed, carriage return and tab, and writes other C0 controls and DEL as \\xHH', () => {
    expect(escapeForTerminal('a\nb\rc\td\u0000e\u007f')).toBe('a\\nb\\rc\\td\\x00e\\x7f');
  });

  it('escapes every C0 and C1 control, every bidi override and isolate, and U+2028/U+2029', () => {
    for (const c of [...C0, '\u007f', ...C1, ...BIDI, '\u2028', '\u2029']) {
      const out = escapeForTerminal(`<${c}>`);
      expect(out, `U+${c.charCodeAt(0).toString(16)}`).not.toMatch(RAW_UNSAFE);
      expect(out).toMatch(/^<\\(x[0-9a-f]{2}|u[0-9a-f]{4}|[nrt])>$/);
    }
    expect(escapeForTerminal('\u202eevil\u2066')).toBe('\\u202eevil\\u2066');
  });

  it('escapes a lone surrogate but keeps a surrogate pair (an emoji)', () => {
    expect(escapeForTerminal('a\ud800b\udc00c')).toBe('a\\ud800b\\udc00c');
    expect(escapeForTerminal('ok 😀 \u05e9\u05dc\u05d5\u05dd é 日本')).toBe('ok 😀 \u05e9\u05dc\u05d5\u05dd é 日本');
  });

  it('returns the very string when there is nothing to escape', () => {
    const text = 'plain C:\\path\\x1b text';
    expect(escapeForTerminal(text)).toBe(text);
  });

  it('keeps line feeds, tabs and CRLF pairs in multiline mode, and escapes a lone CR and the rest', () => {
    expect(escapeForTerminal('a\nb\tc\r\nd\re\u001bf', { multiline: true })).toBe('a\nb\tc\r\nd\\re\\x1bf');
  });
});

describe('terminalSafeJson', () => {
  it('writes DEL, C1, bidi controls and separators as \\u escapes that parse back to the same value', () => {
    const value = { title: 'x\u009b\u202e\u007f\u2028\u2029\u2066y', c0: '\u001b\u0000', lone: 'a\ud800b' };
    const text = terminalSafeJson(value);
    expect(text.replaceAll('\n', '')).not.toMatch(RAW_UNSAFE);
    expect(text).toContain('"x\\u009b\\u202e\\u007f\\u2028\\u2029\\u2066y"');
    expect(JSON.parse(text)).toEqual(value);
  });

  it('is JSON.stringify with the given indent when nothing needs escaping', () => {
    const value = { a: [1, 'é 😀'], b: null };
    expect(terminalSafeJson(value)).toBe(JSON.stringify(value, null, 2));
    expect(terminalSafeJson(value, 0)).toBe(JSON.stringify(value));
  });
});

describe('terminalSafeJsonChunks', () => {
  const join = (value: unknown, indent?: number): string => [...terminalSafeJsonChunks(value, indent)].join('');

  it('writes exactly the text of terminalSafeJson, in pieces', () => {
    const many = Array.from({ length: 300 }, (_, i) => ({ i, text: `line ${i}\n\u2028\u0085`, nested: { deep: [i, { x: [] }], empty: {} } }));
    const values: unknown[] = [
      null,
      7,
      'a\u202eb',
      [],
      {},
      [1, [2, [3, [4, [5, [6]]]]]],
      { a: undefined, b: () => 1, c: [undefined, Number.NaN, Number.POSITIVE_INFINITY, () => 2], d: new Date(0), 'k\u2028': '\u009b' },
      { version: 2, results: [{ filePath: 'x', messages: many }, { filePath: 'y', messages: [] }], summary: { files: 2 } },
      { wide: Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`key${i}`, many.slice(0, i % 3)])) },
      many,
    ];
    for (const value of values) {
      expect(join(value)).toBe(terminalSafeJson(value));
      expect(join(value, 4)).toBe(terminalSafeJson(value, 4));
      // JSON.stringify indents by ten spaces at most, and by whole ones.
      expect(join(value, 12)).toBe(terminalSafeJson(value, 12));
      expect(join(value, 2.5)).toBe(terminalSafeJson(value, 2.5));
    }
  });

  it('writes a long array in runs of items, never whole', () => {
    const value = { results: [{ messages: Array.from({ length: 1000 }, (_, i) => ({ i })) }] };
    const pieces = [...terminalSafeJsonChunks(value)];
    expect(pieces.join('')).toBe(terminalSafeJson(value));
    expect(pieces.length).toBeGreaterThan(4);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThan(terminalSafeJson(value).length / 3);
    expect([...terminalSafeJsonChunks(value, 0)].join('')).toBe(terminalSafeJson(value, 0));
  });

  it('writes a small result in one piece: only what holds a long array is cut', () => {
    const small = (i: number) => ({ filePath: `f${i}`, errorCount: 0, resume: { loaded: i }, messages: [{ line: i, message: 'm' }] });
    const value = { version: 2, results: Array.from({ length: 500 }, (_, i) => small(i)), summary: { files: 500 } };
    const pieces = [...terminalSafeJsonChunks(value)];
    expect(pieces.join('')).toBe(terminalSafeJson(value));
    // Per result: its indent, its text and the separator; a few for the report's own members.
    expect(pieces.length).toBeLessThanOrEqual(3 * 500 + 12);
    expect(pieces).toContain(terminalSafeJson(small(7)).replaceAll('\n', '\n    '));
  });
});
