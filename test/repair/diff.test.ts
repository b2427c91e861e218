import { describe, expect, it } from 'vitest';
import type { RecordEdit } from '../../src/core/types.js';
import { editsPatch } from '../../src/repair/diff.js';
import { applyToBytes, wholePatch } from '../helpers/plan-bytes.js';
import { prng as random } from '../support/tree.js';

function randomEdits(lines: readonly string[], next: () => number): RecordEdit[] {
  const edits: RecordEdit[] = [];
  const used = new Set<number>();
  const count = 1 + Math.floor(next() * 4);
  for (let k = 0; k < count; k++) {
    const line = 1 + Math.floor(next() * lines.length);
    const roll = next();
    if (roll < 0.4 && !used.has(line)) {
      used.add(line);
      const after = next() < 0.2 ? [`new ${k} for ${line}`, `second ${k} for ${line}`] : [`new ${k} for ${line}`];
      edits.push({ kind: 'replace', line, before: lines[line - 1] as string, after });
    } else if (roll < 0.7 && !used.has(line)) {
      used.add(line);
      edits.push({ kind: 'delete', line, before: lines[line - 1] as string });
    } else {
      edits.push({ kind: 'insertAfter', line, after: [`inserted ${k} after ${line}`] });
    }
  }
  return edits;
}

describe('editsPatch', () => {
  it('gives the hunks of the whole-file diff, at the same line numbers, for random edits', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const lines = Array.from({ length: 1 + Math.floor(next() * 12) }, (_, i) => `line ${i + 1}`);
      const before = Buffer.from(`${lines.join('\n')}\n`);
      const edits = randomEdits(lines, next);
      const after = applyToBytes(before, edits);
      expect(after, `seed ${seed}`).toBeDefined();
      const whole = wholePatch('p/s.jsonl', before, after as Buffer);
      const own = editsPatch('p/s.jsonl', edits, (n) => lines[n - 1] as string, lines.length);
      // Compare what each hunk says; jsdiff may order a run of -/+ lines differently, never the counts.
      const shape = (p: typeof whole) =>
        p.hunks.map((h) => ({
          at: [h.oldStart, h.oldLines, h.newStart, h.newLines],
          removed: h.lines.filter((l) => l.startsWith('-')).sort(),
          added: h.lines.filter((l) => l.startsWith('+')).sort(),
          context: h.lines.filter((l) => l.startsWith(' ')),
        }));
      expect(shape(own), `seed ${seed}`).toEqual(shape(whole));
    }
  });

  it('numbers a change deep in a file by its real line, not from 1', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `{"n":${i + 1}}`);
    const patch = editsPatch('s.jsonl', [{ kind: 'replace', line: 40, before: lines[39] as string, after: ['{"n":"x"}'] }], (n) => lines[n - 1] as string, 50);
    expect(patch.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([[39, 3, 39, 3]]);
    expect(patch.hunks[0]?.lines).toEqual([' {"n":39}', '-{"n":40}', '+{"n":"x"}', ' {"n":41}']);
  });
});
