import { describe, expect, it } from 'vitest';
import { type ByteSource, bufferSource, scanLineViews } from '../../src/core/reader.js';

/** What the reader says of one line, copied out of the reused view. */
interface RawLine {
  readonly line: number;
  readonly offset: number;
  readonly byteLength: number;
  readonly text: string | undefined;
  readonly crlf: boolean;
  readonly terminated: boolean;
}

/** A source that hands out at most `step` bytes per read: every line spans reads. */
function tricklingSource(bytes: Buffer, step: number): ByteSource {
  const inner = bufferSource(bytes);
  return { size: inner.size, read: (t, o, l, p) => inner.read(t, o, Math.min(l, step), p), close: () => undefined };
}

function scan(source: ByteSource): { lines: RawLine[]; stats: ReturnType<typeof scanLineViews> } {
  const lines: RawLine[] = [];
  const stats = scanLineViews(source, (v) =>
    lines.push({ line: v.line, offset: v.offset, byteLength: v.byteLength, text: v.text(), crlf: v.crlf, terminated: v.terminated }),
  );
  return { lines, stats };
}

/** The reference: split on \n only, by hand. */
function reference(bytes: Buffer): RawLine[] {
  const out = [];
  let start = 0;
  let line = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl === -1 ? bytes.length : nl;
    line++;
    let from = start;
    let to = end;
    if (line === 1 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) from += 3;
    const crlf = nl !== -1 && to > from && bytes[to - 1] === 0x0d;
    if (crlf) to--;
    out.push({ line, offset: start, byteLength: end - start, text: bytes.toString('utf8', from, to), crlf, terminated: nl !== -1 });
    start = nl === -1 ? bytes.length : nl + 1;
  }
  return out;
}

describe('scanLineViews', () => {
  it('matches a by-hand split for random inputs read a few bytes at a time', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pieces = ['{"a":1}', 'é', '😀', '\r\n', '\n', '\u0000', '\u2028', ' ', 'x'.repeat(40)];
    for (let round = 0; round < 200; round++) {
      let text = round % 5 === 0 ? '\u{feff}' : '';
      const n = Math.floor(random() * 30);
      for (let i = 0; i < n; i++) text += pieces[Math.floor(random() * pieces.length)];
      const bytes = Buffer.from(text);
      const { lines, stats } = scan(tricklingSource(bytes, 1 + Math.floor(random() * 7)));
      expect(lines, JSON.stringify(text)).toEqual(reference(bytes));
      expect(stats.byteLength).toBe(bytes.length);
      expect(stats.lineCount).toBe(lines.length);
      expect(stats.endsWithNewline).toBe(bytes.length > 0 && bytes[bytes.length - 1] === 0x0a);
      expect(stats.hasBom).toBe(text.startsWith('\u{feff}'));
    }
  });

  it('carries a line longer than the 8 MiB read chunk', () => {
    const long = `{"t":"${'y'.repeat(9 * 1024 * 1024)}"}`;
    const bytes = Buffer.from(`{"a":1}\n${long}\n{"b":2}`);
    const { lines } = scan(bufferSource(bytes));
    expect(lines.map((l) => [l.line, l.offset, l.byteLength, l.terminated])).toEqual([
      [1, 0, 7, true],
      [2, 8, long.length, true],
      [3, 9 + long.length, 7, false],
    ]);
    expect(lines[1]?.text).toBe(long);
  });

  it('reads an empty file as no lines', () => {
    expect(scan(bufferSource(Buffer.alloc(0)))).toEqual({ lines: [], stats: { byteLength: 0, lineCount: 0, endsWithNewline: false, hasBom: false } });
  });
});
