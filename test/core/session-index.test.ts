import { describe, expect, it } from 'vitest';
import { bufferSource } from '../../src/core/reader.js';
import { MAX_OPEN_SOURCES, SessionIndex, type SessionFile } from '../../src/core/session-index.js';
import fs from 'node:fs';
import { corpusFiles, indexText, SHARED_CORPUS } from '../support/corpus.js';

/** The bundled corpus, and the shared one when it is beside the repository (CI has it). */
const everyCorpusFile = () => [...corpusFiles(), ...(fs.existsSync(`${SHARED_CORPUS.root}/SOURCES.md`) ? corpusFiles(SHARED_CORPUS) : [])];

const fileOf = (path: string): SessionFile => ({
  path,
  displayPath: path,
  role: 'main',
  projectDir: '/p',
  projectFolderName: 'p',
  layoutSessionId: undefined,
});

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

describe('SessionIndex.childrenOf', () => {
  const line = (uuid: string, parent: string | null, extra = ''): string =>
    `{"type":"user","uuid":"${uuid}","parentUuid":${parent === null ? 'null' : `"${parent}"`}${extra}}`;

  it('lists children in file order, and none for a leaf or an unknown uuid', () => {
    const index = indexText([line('a', null), line('b', 'a'), line('c', 'b'), line('d', 'a'), line('e', 'b')].join('\n') + '\n');
    expect(index.childrenOf('a').map((r) => r.uuid)).toEqual(['b', 'd']);
    expect(index.childrenOf('b').map((r) => r.uuid)).toEqual(['c', 'e']);
    expect(index.childrenOf('c')).toEqual([]);
    expect(index.childrenOf('nowhere')).toEqual([]);
  });

  it('keeps the children of a parent that is not in the file, by its uuid', () => {
    const index = indexText([line('a', 'ghost'), line('b', 'a'), line('c', 'ghost')].join('\n') + '\n');
    expect(index.childrenOf('ghost').map((r) => r.uuid)).toEqual(['a', 'c']);
    expect(index.childrenOf('a').map((r) => r.uuid)).toEqual(['b']);
  });

  it('counts a duplicated uuid once, by its last body, as parent and as child', () => {
    // The same uuid written twice with different parents: Claude Code keeps
    // the last body, so only that one is a child, of its own parent.
    const index = indexText(
      [line('a', null), line('b', null), line('x', 'a', ',"n":1'), line('y', 'x'), line('x', 'b', ',"n":2')].join('\n') + '\n',
    );
    expect(index.childrenOf('a')).toEqual([]);
    expect(index.childrenOf('b').map((r) => [r.uuid, r.line])).toEqual([['x', 5]]);
    expect(index.childrenOf('x').map((r) => r.uuid)).toEqual(['y']);
  });
});

describe('SessionIndex.parentOf', () => {
  /** What parentOf promises: the record the uuid map keeps for the parent uuid (the last body of a repeated one). */
  const byMap = (index: SessionIndex) => (r: SessionIndex['records'][number]) =>
    typeof r.parentUuid === 'string' ? index.byUuid.get(r.parentUuid) : undefined;

  it('is the uuid map\'s record for parents written before, after, repeated later, and for a record its own parent', () => {
    const index = indexText(
      [
        '{"type":"user","uuid":"c","parentUuid":"b"}', // its parent comes later in the file
        '{"type":"user","uuid":"a","parentUuid":null}',
        '{"type":"user","uuid":"b","parentUuid":"a"}',
        '{"type":"user","uuid":"d","parentUuid":"a"}', // "a" is written again below: the last copy wins
        '{"type":"user","uuid":"a","parentUuid":"x"}',
        '{"type":"user","uuid":"e","parentUuid":"e"}', // its own parent
        '{"type":"user","uuid":"f","parentUuid":"gone"}',
        '{"type":"user","uuid":"g"}',
        '{"type":"user","uuid":"h","parentUuid":7}',
        // The second result of two parallel calls hangs from the first and names the calling row.
        '{"type":"user","uuid":"i","parentUuid":"g","sourceToolAssistantUUID":"e"}',
        '{"type":"user","uuid":"j","parentUuid":"nowhere","sourceToolAssistantUUID":"g"}',
        '',
      ].join('\n'),
    );
    expect(index.records.map((r) => index.parentOf(r)?.line ?? null)).toEqual([3, null, 5, 5, null, 6, null, null, null, 8, null]);
    expect(index.records.map((r) => index.parentOf(r))).toEqual(index.records.map(byMap(index)));
  });

  it('a record of another index is looked up by its parent uuid', () => {
    const index = indexText('{"type":"user","uuid":"a","parentUuid":null}\n{"type":"user","uuid":"b","parentUuid":"a"}\n');
    const other = indexText('{"type":"user","uuid":"z","parentUuid":null}\n{"type":"user","uuid":"y","parentUuid":"a"}\n');
    expect(index.parentOf(other.records[1] as SessionIndex['records'][number])).toBe(index.records[0]);
    expect(index.parentOf(other.records[0] as SessionIndex['records'][number])).toBeUndefined();
  });

  it('agrees with the uuid map on every record of the corpus', () => {
    for (const file of everyCorpusFile()) {
      const index = indexText(fs.readFileSync(file.absolute));
      expect(index.records.map((r) => index.parentOf(r)), file.relative).toEqual(index.records.map(byMap(index)));
    }
  });
});

describe('SessionIndex.childCount and isAncestor', () => {
  const line = (uuid: string, parent: string | null): string =>
    `{"type":"user","uuid":"${uuid}","parentUuid":${parent === null ? 'null' : `"${parent}"`}}`;
  // a ─┬─ b ── c        g (missing parent "ghost")
  //    └─ d             x ⇄ y (a cycle)
  const index = indexText(
    [line('a', null), line('b', 'a'), line('c', 'b'), line('d', 'a'), line('g', 'ghost'), line('x', 'y'), line('y', 'x')].join('\n') + '\n',
  );
  const at = (uuid: string) => index.byUuid.get(uuid) as NonNullable<ReturnType<typeof index.byUuid.get>>;

  it('counts what childrenOf lists, for parents in the file, missing ones and unknown ones', () => {
    for (const uuid of ['a', 'b', 'c', 'd', 'g', 'x', 'y', 'ghost', 'nowhere']) {
      expect(index.childCount(uuid), uuid).toBe(index.childrenOf(uuid).length);
    }
    expect(['a', 'b', 'c', 'ghost'].map((u) => index.childCount(u))).toEqual([2, 1, 0, 1]);
  });

  it('childCountOf a record is childCount of its uuid, an older copy of a repeated uuid and a record of another index included', () => {
    expect(index.records.map((r) => index.childCountOf(r))).toEqual(index.records.map((r) => index.childCount(r.uuid as string)));
    const repeated = indexText([line('a', null), line('b', 'a'), line('a', null), line('c', 'a'), '{"type":"user"}'].join('\n') + '\n');
    expect(repeated.records.map((r) => repeated.childCountOf(r))).toEqual([2, 0, 2, 0, 0]);
    expect(index.childCountOf(repeated.records[0] as (typeof repeated.records)[number])).toBe(2); // "a" of the other index: looked up by uuid
    for (const file of everyCorpusFile()) {
      const each = indexText(fs.readFileSync(file.absolute));
      const byUuid = each.records.map((r) => (r.uuid === undefined ? 0 : each.childCount(r.uuid)));
      expect(each.records.map((r) => each.childCountOf(r)), file.relative).toEqual(byUuid);
    }
  });

  it('answers ancestry along parent links only, and survives a cycle', () => {
    expect(index.isAncestor(at('a'), at('c'))).toBe(true);
    expect(index.isAncestor(at('a'), at('a'))).toBe(true);
    expect(index.isAncestor(at('b'), at('d'))).toBe(false);
    expect(index.isAncestor(at('c'), at('a'))).toBe(false);
    expect(index.isAncestor(at('a'), at('g'))).toBe(false);
    // In a cycle one record is entered first and the other below it.
    expect(index.isAncestor(at('x'), at('y')) !== index.isAncestor(at('y'), at('x'))).toBe(true);
  });
});

describe('SessionIndex stats.lastSkipBoundaryLine', () => {
  // The SDK reader's pre-compaction skip for files over 5 MiB sees a compact
  // boundary only when its marker starts within the line's first 256 bytes
  // (bytes, not characters), or, for a line across a 1 MiB border, when the
  // line starts like a system row at least 30 bytes before the border.
  const user = '{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"hi"}}';
  const boundary = (uuid: string, pad: string): string =>
    `{"type":"system","pad":"${pad}","subtype":"compact_boundary","uuid":"${uuid}","parentUuid":null}`;

  it('counts the marker position in bytes', () => {
    const early = boundary('b1', 'x'.repeat(100));
    const late = boundary('b2', 'x'.repeat(300));
    const wide = boundary('b3', 'é'.repeat(120)); // 120 characters, 240 bytes
    expect(indexText([user, early, late].join('\n') + '\n').stats.lastSkipBoundaryLine).toBe(2);
    expect(indexText([user, early, wide].join('\n') + '\n').stats.lastSkipBoundaryLine).toBe(2);
    expect(indexText([user, late, early].join('\n') + '\n').stats.lastSkipBoundaryLine).toBe(3);
  });

  it('sees a line across a 1 MiB border by how it starts', () => {
    const MiB = 1024 * 1024;
    // The second line starts 40 bytes before the border and crosses it.
    const filler = `{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"${'y'.repeat(MiB - 40 - 1 - 70)}"}}`;
    expect(Buffer.byteLength(filler) + 1).toBe(MiB - 40);
    const systemFirst = boundary('b1', 'x'.repeat(300));
    const subtypeFirst = `{"subtype":"compact_boundary","type":"system","uuid":"b2","parentUuid":null,"pad":"${'x'.repeat(100)}"}`;
    expect(indexText(`${filler}\n${systemFirst}\n`).stats.lastSkipBoundaryLine).toBe(2);
    expect(indexText(`${filler}\n${subtypeFirst}\n`).stats.lastSkipBoundaryLine).toBe(0);
  });
});

describe('SessionIndex reading lines back', () => {
  const text = ['{"type":"user","uuid":"a","n":1}', '{"type":"user","uuid":"a", "n":1}', '{"type":"user","uuid":"a","n":2}', '{"type":"user","uuid":"b"}{"type":"user","uuid":"a","n":1}'].join('\n') + '\n';
  const counted = (): { index: SessionIndex; opened: () => number; open: () => number } => {
    let opened = 0;
    let open = 0;
    const index = SessionIndex.build(fileOf('/p/s.jsonl'), () => {
      opened++;
      open++;
      const source = bufferSource(Buffer.from(text));
      return { ...source, size: source.size, close: () => void open-- };
    });
    return { index, opened: () => opened, open: () => open };
  };

  it('opens the file once for many lines, and again only after releaseSource', () => {
    const { index, opened, open } = counted();
    expect(opened()).toBe(1); // the build's own pass
    for (let i = 0; i < 10; i++) for (const r of index.records) index.lineText(r.line);
    expect(opened()).toBe(2);
    expect(open()).toBe(1);
    index.releaseSource();
    expect(open()).toBe(0);
    expect(index.lineText(3)).toBe('{"type":"user","uuid":"a","n":2}');
    expect(opened()).toBe(3);
    index.releaseSource();
  });

  it(`keeps at most ${MAX_OPEN_SOURCES} files open across indexes, closing the least recently read`, () => {
    const runs = Array.from({ length: MAX_OPEN_SOURCES + 2 }, counted);
    for (const run of runs) run.index.lineText(1);
    expect(runs.map((run) => run.open())).toEqual([0, 0, ...Array<number>(MAX_OPEN_SOURCES).fill(1)]);
    // The first is read again: reopened, and the least recently read of the others is closed.
    expect(runs[0]?.index.lineText(2)).toBe('{"type":"user","uuid":"a", "n":1}');
    expect(runs.map((run) => run.open())).toEqual([1, 0, 0, ...Array<number>(MAX_OPEN_SOURCES - 1).fill(1)]);
    for (const run of runs) run.index.releaseSource();
    expect(runs.map((run) => run.open())).toEqual(Array<number>(runs.length).fill(0));
  });

  it('bodyDigest: equal for the same body written with other spacing or glued to another record, different for another body', () => {
    const { index } = counted();
    const [first, spaced, other, , glued] = index.records;
    const digest = (r: typeof first): string => index.bodyDigest(r as NonNullable<typeof first>);
    expect(digest(spaced)).toBe(digest(first));
    expect(digest(glued)).toBe(digest(first));
    expect(digest(other)).not.toBe(digest(first));
    index.releaseSource();
  });

  it('bodyDigest: the copies of repeated uuids are digested in one read of the file, not one per line', () => {
    const { index, opened } = counted();
    const digests = index.records.map((r) => index.bodyDigest(r));
    // The build, the one pass over the repeated copies, and one read-back for the line of glued records.
    expect(opened()).toBe(3);
    expect(new Set(digests).size).toBe(3); // {a n:1} three times, {a n:2}, {b}
    expect(index.records.map((r) => index.bodyDigest(r))).toEqual(digests);
    expect(opened()).toBe(3);
    index.releaseSource();
  });
});
