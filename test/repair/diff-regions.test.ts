/**
 * The per-region diff gives the same patch as diffing the whole files as
 * strings (what it replaced), for the shapes fixes produce: a line
 * replaced, deleted or inserted, at the top, at the bottom, in several
 * places far apart or next to each other, with and without a final newline.
 */
import { formatPatch, structuredPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { filePatch } from '../../src/repair/diff.js';

const lines = (n: number): string[] => Array.from({ length: n }, (_, i) => `{"n":${i},"uuid":"u${i}","text":"line ${i}"}`);
const text = (ls: readonly string[], finalNewline = true): Buffer => Buffer.from(ls.join('\n') + (finalNewline && ls.length > 0 ? '\n' : ''));

function whole(before: Buffer, after: Buffer): string {
  return formatPatch(structuredPatch('a/x.jsonl', 'b/x.jsonl', before.toString(), after.toString(), undefined, undefined, { context: 1 }));
}

function edit(n: number, change: (ls: string[]) => void): [Buffer, Buffer] {
  const a = lines(n);
  const b = [...a];
  change(b);
  return [text(a), text(b)];
}

describe('filePatch per region', () => {
  const cases: Array<[string, [Buffer, Buffer]]> = [
    ['one line replaced in the middle', edit(200, (b) => void (b[100] = '{"n":100,"fixed":true}'))],
    ['the first line replaced', edit(50, (b) => void (b[0] = '{"first":true}'))],
    ['the last line replaced', edit(50, (b) => void (b[49] = '{"last":true}'))],
    ['a line deleted', edit(80, (b) => void b.splice(40, 1))],
    ['lines inserted', edit(80, (b) => void b.splice(40, 0, '{"new":1}', '{"new":2}'))],
    ['a line appended at the end', edit(30, (b) => void b.push('{"type":"custom-title"}'))],
    [
      'changes far apart and next to each other',
      edit(1000, (b) => {
        b[3] = '{"a":1}';
        b[4] = '{"a":2}';
        b[6] = '{"a":3}';
        b[500] = '{"b":1}';
        b.splice(900, 1);
        b.splice(950, 0, '{"c":1}');
      }),
    ],
    ['nothing changed', edit(20, () => undefined)],
  ];
  it.each(cases)('%s: the same patch as the whole-file diff', (_, [before, after]) => {
    expect(formatPatch(filePatch('x.jsonl', before, after))).toBe(whole(before, after));
  });

  it('no final newline', () => {
    const a = lines(10);
    const b = [...a];
    b[9] = '{"end":true}';
    const [before, after] = [text(a, false), text(b, false)];
    expect(formatPatch(filePatch('x.jsonl', before, after))).toBe(whole(before, after));
  });

  it('a region longer than the resync window still diffs right', () => {
    const [before, after] = edit(400, (b) => {
      for (let i = 100; i < 300; i++) b[i] = `{"rewritten":${i}}`;
    });
    expect(formatPatch(filePatch('x.jsonl', before, after))).toBe(whole(before, after));
  });
});
