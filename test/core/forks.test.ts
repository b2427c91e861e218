import { describe, expect, it } from 'vitest';
import { forkReport } from '../../src/core/forks.js';
import type { RecordSummary } from '../../src/core/records.js';
import { linkGroup } from '../../src/engine/linter.js';
import { resumeModel } from '../../src/core/resume.js';
import { assistant, jsonl, progress, resetClock, toolResult, user } from '../helpers/records.js';
import fs from 'node:fs';
import { injectBreak } from '../support/breaks.js';
import { corpusFiles, indexText, realMainSessions, SHARED_CORPUS } from '../support/corpus.js';

function report(records: Parameters<typeof jsonl>[0]) {
  const index = indexText(jsonl(records));
  linkGroup([index], undefined);
  return forkReport(index, resumeModel(index));
}

describe('fork classification', () => {
  it('parallel tool calls: results and the continuation under one tool_use row', () => {
    resetClock();
    const r = report([
      user('u1'),
      assistant('a1', { parent: 'u1', toolUse: ['t1', 't2'] }),
      toolResult('r1', { parent: 'a1', toolUseId: 't1' }),
      toolResult('r2', { parent: 'a1', toolUseId: 't2' }),
      assistant('a2', { parent: 'a1' }),
    ]);
    expect(r.counts).toEqual({ 'tool-fanout': 1, streaming: 0, progress: 0, 'compaction-replay': 0, rewind: 0 });
    expect(r.abandoned).toEqual([]);
  });

  it('streaming: rows of one API response hang off the same parent', () => {
    resetClock();
    const r = report([user('u1'), assistant('a1', { parent: 'u1', messageId: 'M' }), assistant('a2', { parent: 'u1', messageId: 'M' })]);
    expect(r.forks.map((f) => f.kind)).toEqual(['streaming']);
  });

  it('progress rows beside the real child are mechanical', () => {
    resetClock();
    const r = report([user('u1'), progress('p1', { parent: 'u1' }), assistant('a1', { parent: 'u1' })]);
    expect(r.forks.map((f) => f.kind)).toEqual(['progress']);
  });

  it('compaction replays: siblings with identical timestamps', () => {
    resetClock();
    const first = assistant('a1', { parent: 'u1' });
    const replay = { ...assistant('a2', { parent: 'u1' }), timestamp: first.timestamp };
    const r = report([user('u1'), first, replay]);
    expect(r.forks.map((f) => f.kind)).toEqual(['compaction-replay']);
  });

  it('a rewind: two typed prompts under one reply; the branch resume leaves has its depth', () => {
    resetClock();
    const r = report([
      user('u1'),
      assistant('a1', { parent: 'u1' }),
      user('old', { parent: 'a1', text: 'first try' }),
      assistant('a2', { parent: 'old' }),
      user('u3', { parent: 'a2' }),
      user('new', { parent: 'a1', text: 'second try' }),
      assistant('a3', { parent: 'new' }),
    ]);
    expect(r.forks.map((f) => [f.kind, f.children.length])).toEqual([['rewind', 2]]);
    expect(r.abandoned.map((b) => [b.root.line, b.depth, b.records])).toEqual([[3, 3, 3]]);
  });
});

describe('abandoned branches measured all at once', () => {
  /**
   * The branch walked level by level, as the measure is defined: its own
   * oracle, not the production walk (which the report also falls back to).
   */
  function levels(index: ReturnType<typeof indexText>, root: RecordSummary): { depth: number; records: number } {
    const seen = new Set<RecordSummary>([root]);
    let level = [root];
    let depth = 0;
    while (level.length > 0) {
      depth++;
      level = level.flatMap((r) => (r.uuid === undefined ? [] : index.childrenOf(r.uuid))).filter((c) => !seen.has(c) && seen.add(c));
    }
    return { depth, records: seen.size };
  }

  it('give each branch the size and depth a walk of it gives, on real sessions cut off by a break and on the corpus', () => {
    let checked = 0;
    const shared = fs.existsSync(`${SHARED_CORPUS.root}/SOURCES.md`) ? [...realMainSessions(SHARED_CORPUS), ...corpusFiles(SHARED_CORPUS)] : [];
    for (const f of [...realMainSessions(), ...corpusFiles(), ...shared]) {
      const text = fs.readFileSync(f.absolute, 'utf8');
      const texts = [text, ...(['orphan-root', 'phantom-parent', 'dropped-line'] as const).map((k) => injectBreak(text, k, 'forks')?.text).filter((t) => t !== undefined)];
      for (const t of texts) {
        const index = indexText(t);
        linkGroup([index], undefined);
        for (const branch of forkReport(index, resumeModel(index)).abandoned) {
          expect({ depth: branch.depth, records: branch.records }, f.relative).toEqual(levels(index, branch.root));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
