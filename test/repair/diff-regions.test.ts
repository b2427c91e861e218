/**
 * The per-region diff of a planned rewrite (rewritePatch) gives the same
 * patch as diffing the whole files as strings, for the shapes fixes
 * produce: a line replaced, deleted or inserted, at the top, at the bottom,
 * in several places far apart or next to each other, with and without a
 * final newline, and for random edit sets.
 */
import { formatPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { bufferSource } from '../../src/core/reader.js';
import type { RecordEdit } from '../../src/core/types.js';
import { rewritePatch } from '../../src/repair/diff.js';
import { applyLineEdits, Rewrite } from '../../src/repair/rewrite.js';
import { SessionIndex } from '../../src/core/session-index.js';
import { classifyPath } from '../../src/core/discovery.js';
import { rewrittenBytes, wholePatch } from '../helpers/plan-bytes.js';
import { prng } from '../support/tree.js';

const FILE = classifyPath('/p/-x/0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl', '/');
const lines = (n: number): string[] => Array.from({ length: n }, (_, i) => `{"n":${i},"uuid":"u${i}","text":"line ${i}"}`);
const text = (ls: readonly string[], finalNewline = true, eol = '\n'): Buffer =>
  Buffer.from(ls.join(eol) + (finalNewline && ls.length > 0 ? eol : ''));

/** The rewrite the edits make of `before`, its bytes, and both diffs of it. */
function diffs(before: Buffer, edits: readonly RecordEdit[]): { ours: string; whole: string; after: Buffer } {
  const source = bufferSource(before);
  const index = SessionIndex.build(FILE, () => bufferSource(before));
  const rewrite = applyLineEdits(Rewrite.identity(before.length), source, index.lineTable(), edits);
  if (rewrite === undefined) throw new Error('stale edit');
  const after = rewrittenBytes(rewrite, before);
  return {
    ours: formatPatch(rewritePatch('x.jsonl', source, before.length, rewrite)),
    whole: formatPatch(wholePatch('x.jsonl', before, after)),
    after,
  };
}

const replace = (ls: readonly string[], line: number, after: string[]): RecordEdit => ({ kind: 'replace', line, before: ls[line - 1] as string, after });
const del = (ls: readonly string[], line: number): RecordEdit => ({ kind: 'delete', line, before: ls[line - 1] as string });

describe('rewritePatch per region', () => {
  const l200 = lines(200);
  const l50 = lines(50);
  const l80 = lines(80);
  const l30 = lines(30);
  const l1000 = lines(1000);
  const cases: Array<[string, readonly string[], RecordEdit[]]> = [
    ['one line replaced in the middle', l200, [replace(l200, 101, ['{"n":100,"fixed":true}'])]],
    ['the first line replaced', l50, [replace(l50, 1, ['{"first":true}'])]],
    ['the last line replaced', l50, [replace(l50, 50, ['{"last":true}'])]],
    ['a line deleted', l80, [del(l80, 41)]],
    ['lines inserted', l80, [{ kind: 'insertAfter', line: 40, after: ['{"new":1}', '{"new":2}'] }]],
    ['a line appended at the end', l30, [{ kind: 'insertAfter', line: 30, after: ['{"type":"custom-title"}'] }]],
    [
      'changes far apart and next to each other',
      l1000,
      [
        replace(l1000, 4, ['{"a":1}']),
        replace(l1000, 5, ['{"a":2}']),
        replace(l1000, 7, ['{"a":3}']),
        replace(l1000, 501, ['{"b":1}']),
        del(l1000, 901),
        { kind: 'insertAfter', line: 950, after: ['{"c":1}'] },
      ],
    ],
    ['a line split in two records', l50, [replace(l50, 20, ['{"x":1}', '{"x":2}'])]],
  ];
  it.each(cases)('%s: the same patch as the whole-file diff', (_, ls, edits) => {
    const { ours, whole } = diffs(text(ls), edits);
    expect(ours).toBe(whole);
  });

  it('nothing changed: no hunks', () => {
    const { ours } = diffs(text(lines(20)), []);
    expect(ours).toBe(formatPatch(wholePatch('x.jsonl', text(lines(20)), text(lines(20)))));
  });

  it('no final newline: the last line replaced, and a record inserted after it', () => {
    const ls = lines(10);
    expect(diffs(text(ls, false), [replace(ls, 10, ['{"end":true}'])]).ours).toBe(diffs(text(ls, false), [replace(ls, 10, ['{"end":true}'])]).whole);
    const inserted = diffs(text(ls, false), [{ kind: 'insertAfter', line: 10, after: ['{"tail":1}'] }]);
    expect(inserted.after.toString().endsWith(`${ls[9]}\n{"tail":1}\n`)).toBe(true);
    expect(inserted.ours).toBe(inserted.whole);
  });

  it('a long rewritten run diffs right', () => {
    const ls = lines(400);
    const edits = Array.from({ length: 200 }, (_, i) => replace(ls, 101 + i, [`{"rewritten":${i}}`]));
    const { ours, whole } = diffs(text(ls), edits);
    expect(ours).toBe(whole);
  });

  it('agrees with the whole-file diff on random edit sets, LF and CRLF, with and without a final newline', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const next = prng(seed);
      const ls = lines(1 + Math.floor(next() * 40));
      const edits: RecordEdit[] = [];
      const used = new Set<number>();
      for (let k = 0, count = 1 + Math.floor(next() * 6); k < count; k++) {
        const line = 1 + Math.floor(next() * ls.length);
        const roll = next();
        if (roll < 0.4 && !used.has(line)) {
          used.add(line);
          edits.push(replace(ls, line, next() < 0.2 ? [`{"k":${k},"a":1}`, `{"k":${k},"a":2}`] : [`{"k":${k}}`]));
        } else if (roll < 0.7 && !used.has(line)) {
          used.add(line);
          edits.push(del(ls, line));
        } else {
          edits.push({ kind: 'insertAfter', line, after: [`{"ins":${k}}`] });
        }
      }
      const bytes = text(ls, next() < 0.8, next() < 0.8 ? '\n' : '\r\n');
      const { ours, whole } = diffs(bytes, edits);
      expect(ours, `seed ${seed}`).toBe(whole);
    }
  });
});
