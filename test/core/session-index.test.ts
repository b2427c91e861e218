import { describe, expect, it } from 'vitest';
import { indexText } from '../support/corpus.js';

describe('SessionIndex.recordObject', () => {
  it('returns the right record of a line that holds several (glued records)', () => {
    const index = indexText('{"type":"user","uuid":"a"}\n{"type":"user","uuid":"b"}{"type":"user","uuid":"c"}\n{"type":"user","uuid":"d"}\n');
    expect(index.records.map((r) => [r.uuid, r.line])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 2],
      ['d', 3],
    ]);
    expect(index.records.map((r) => index.recordObject(r)?.uuid)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('says which parents are missing everywhere, once the linker has looked', () => {
    const index = indexText('{"type":"user","uuid":"a","parentUuid":null}\n{"type":"user","uuid":"b","parentUuid":"a"}\n{"type":"user","uuid":"c","parentUuid":"x"}\n{"type":"user","uuid":"d","parentUuid":"y"}\n');
    index.setExternalParents(new Map([['y', { kind: 'other-session', path: '/p/other.jsonl' }]]));
    expect(index.records.map((r) => index.hasMissingParent(r))).toEqual([false, false, true, false]);
  });
});
