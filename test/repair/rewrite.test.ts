/**
 * The piece table the planner and the writer share (src/repair/rewrite.ts):
 * record edits give exactly the bytes a whole-file rewrite gives (checked
 * against such a rewrite, kept here as the reference, over random edits on
 * LF, CRLF, BOM and unterminated texts), splices and reads agree with
 * naive buffer surgery, and the hashing source gives the text's sha256.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bufferSource } from '../../src/core/reader.js';
import type { RecordEdit } from '../../src/core/types.js';
import { hashingSource, Rewrite } from '../../src/repair/rewrite.js';
import { applyToBytes, rewrittenBytes } from '../helpers/plan-bytes.js';
import { prng } from '../support/tree.js';

/** The whole-file rewrite the piece table replaced: split into lines, edit, join. */
function referenceApply(bytes: Buffer, edits: readonly RecordEdit[]): Buffer | undefined {
  const spans: Array<{ start: number; end: number; next: number }> = [];
  for (let start = 0; start < bytes.length; ) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl === -1) {
      spans.push({ start, end: bytes.length, next: bytes.length });
      break;
    }
    spans.push({ start, end: nl > start && bytes[nl - 1] === 0x0d ? nl - 1 : nl, next: nl + 1 });
    start = nl + 1;
  }
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const replaced = new Map<number, readonly string[]>();
  const deleted = new Set<number>();
  const inserted = new Map<number, string[]>();
  for (const edit of edits) {
    const span = spans[edit.line - 1];
    if (edit.kind !== 'insertAfter') {
      if (span === undefined) return undefined;
      const from = edit.line === 1 && hasBom ? span.start + 3 : span.start;
      if (bytes.toString('utf8', from, span.end) !== edit.before) return undefined;
    }
    if (edit.kind === 'replace') replaced.set(edit.line, edit.after);
    else if (edit.kind === 'delete') deleted.add(edit.line);
    else inserted.set(edit.line, [...(inserted.get(edit.line) ?? []), ...edit.after]);
  }
  const parts: Buffer[] = [];
  spans.forEach((span, i) => {
    const line = i + 1;
    const eol = bytes.subarray(span.end, span.next);
    if (deleted.has(line)) {
      // nothing
    } else if (replaced.has(line)) {
      parts.push(Buffer.from((replaced.get(line) as readonly string[]).join(eol.length > 0 ? eol.toString('latin1') : '\n')));
      parts.push(eol.length > 0 ? eol : Buffer.from('\n'));
    } else {
      parts.push(bytes.subarray(span.start, span.next));
    }
    for (const t of inserted.get(line) ?? []) {
      if (span.next === span.end && !deleted.has(line)) parts.push(Buffer.from('\n'));
      parts.push(Buffer.from(`${t}\n`));
    }
  });
  return Buffer.concat(parts);
}

describe('applyLineEdits', () => {
  const text = Buffer.from('\u{feff}{"a":1}\r\n{"b":2}\r\n{"c":3}');

  it('keeps untouched lines byte for byte, CRLF included', () => {
    const out = applyToBytes(text, [{ kind: 'replace', line: 2, before: '{"b":2}', after: ['{"b":3}'] }]);
    expect(out?.toString()).toBe('\u{feff}{"a":1}\r\n{"b":3}\r\n{"c":3}');
  });

  it('drops a BOM only when line 1 itself is rewritten', () => {
    const out = applyToBytes(text, [{ kind: 'replace', line: 1, before: '{"a":1}', after: ['{"a":1}'] }]);
    expect(out?.toString()).toBe('{"a":1}\r\n{"b":2}\r\n{"c":3}');
  });

  it('deletes, inserts after an unterminated last line, and refuses a stale edit', () => {
    const out = applyToBytes(text, [
      { kind: 'delete', line: 2, before: '{"b":2}' },
      { kind: 'insertAfter', line: 3, after: ['{"d":4}'] },
    ]);
    expect(out?.toString()).toBe('\u{feff}{"a":1}\r\n{"c":3}\n{"d":4}\n');
    expect(applyToBytes(text, [{ kind: 'delete', line: 2, before: '{"b":9}' }])).toBeUndefined();
    expect(applyToBytes(text, [{ kind: 'replace', line: 9, before: '{"b":2}', after: [] }])).toBeUndefined();
  });

  it('gives the bytes of a whole-file rewrite for random edits on LF, CRLF, BOM and unterminated texts', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const next = prng(seed);
      const n = 1 + Math.floor(next() * 15);
      const lines = Array.from({ length: n }, (_, i) => `{"n":${i},"t":"é ${seed}"}`);
      const eol = next() < 0.7 ? '\n' : '\r\n';
      const bom = next() < 0.2 ? '\u{feff}' : '';
      const bytes = Buffer.from(bom + lines.join(eol) + (next() < 0.75 ? eol : ''));
      const edits: RecordEdit[] = [];
      for (let k = 0, count = Math.floor(next() * 6); k < count; k++) {
        const line = 1 + Math.floor(next() * (n + 1)); // now and then a line the text does not have
        const roll = next();
        const before = next() < 0.1 ? 'stale' : (lines[line - 1] ?? '');
        if (roll < 0.35) edits.push({ kind: 'replace', line, before, after: next() < 0.3 ? [`{"r":${k}}`, `{"s":${k}}`] : [`{"r":${k}}`] });
        else if (roll < 0.6) edits.push({ kind: 'delete', line, before });
        else edits.push({ kind: 'insertAfter', line, after: [`{"i":${k}}`] });
      }
      const ours = applyToBytes(bytes, edits);
      const reference = referenceApply(bytes, edits);
      expect(ours?.toString('latin1'), `seed ${seed}`).toBe(reference?.toString('latin1'));
    }
  });
});

describe('Rewrite', () => {
  it('splices and reads like buffer surgery, at every position', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const next = prng(seed);
      const original = Buffer.from(Array.from({ length: 1 + Math.floor(next() * 300) }, (_, i) => 97 + (i % 26)));
      let rewrite = Rewrite.identity(original.length);
      let naive = Buffer.from(original);
      for (let round = 0; round < 4; round++) {
        const cuts = Array.from({ length: 2 * (1 + Math.floor(next() * 3)) }, () => Math.floor(next() * (naive.length + 1))).sort((a, b) => a - b);
        const splices = [];
        for (let i = 0; i < cuts.length; i += 2) {
          splices.push({ from: cuts[i] as number, to: cuts[i + 1] as number, bytes: Buffer.from(next() < 0.3 ? '' : `<${seed}.${round}.${i}>`) });
        }
        rewrite = rewrite.splice(splices);
        const parts: Buffer[] = [];
        let at = 0;
        for (const s of splices) {
          parts.push(naive.subarray(at, s.from), s.bytes);
          at = s.to;
        }
        parts.push(naive.subarray(at));
        naive = Buffer.concat(parts);
        expect(rewrite.size, `seed ${seed}`).toBe(naive.length);
        expect(rewrittenBytes(rewrite, original).equals(naive), `seed ${seed}`).toBe(true);
        const from = Math.floor(next() * (naive.length + 1));
        const length = Math.floor(next() * 40);
        const target = Buffer.alloc(length);
        const n = rewrite.read(bufferSource(original), target, 0, length, from);
        expect(target.subarray(0, n).equals(naive.subarray(from, from + length)), `seed ${seed}`).toBe(true);
      }
    }
  });

  it('says what changed against the original, in order', () => {
    const original = Buffer.from('aaa\nbbb\nccc\nddd\n');
    const rewrite = Rewrite.identity(original.length).splice([
      { from: 4, to: 8, bytes: Buffer.from('BBB\n') },
      { from: 12, to: 12, bytes: Buffer.from('new\n') },
      { from: 12, to: 16, bytes: Buffer.alloc(0) },
    ]);
    expect(rewrittenBytes(rewrite, original).toString()).toBe('aaa\nBBB\nccc\nnew\n');
    expect(rewrite.changes(original.length).map((c) => [c.oldFrom, c.oldTo, c.bytes.toString()])).toEqual([
      [4, 8, 'BBB\n'],
      [12, 16, 'new\n'],
    ]);
    expect(Rewrite.identity(original.length).changes(original.length)).toEqual([]);
  });

  it('refuses splices out of order or outside the text', () => {
    const rewrite = Rewrite.identity(10);
    expect(() => rewrite.splice([{ from: 5, to: 6, bytes: Buffer.alloc(0) }, { from: 2, to: 3, bytes: Buffer.alloc(0) }])).toThrow(RangeError);
    expect(() => rewrite.splice([{ from: 5, to: 11, bytes: Buffer.alloc(0) }])).toThrow(RangeError);
  });

  it('says so when the file it reads is shorter than planned', () => {
    expect(() => rewrittenBytes(Rewrite.identity(10), Buffer.from('short'))).toThrow(/became shorter while cclint read it/);
  });
});

describe('hashingSource', () => {
  it('hashes a sequential read, and reads what the scan left', () => {
    const bytes = Buffer.from('x'.repeat(100_000));
    const whole = createHash('sha256').update(bytes).digest('hex');
    const read = hashingSource(bufferSource(bytes));
    const chunk = Buffer.alloc(30_000);
    read.read(chunk, 0, chunk.length, 0);
    read.read(chunk, 0, 10, 50_000); // a read elsewhere is not hashed
    read.read(chunk, 0, chunk.length, 30_000);
    expect(read.digest()).toBe(whole);
    expect(hashingSource(bufferSource(bytes)).digest()).toBe(whole);
  });

  it('says the file became shorter when the source ends before its size', () => {
    const bytes = Buffer.from('x'.repeat(1000));
    const lying = { ...bufferSource(bytes.subarray(0, 600)), size: 1000 };
    expect(() => hashingSource(lying).digest()).toThrow(/became shorter while cclint read it \(at byte 600\)/);
  });
});
