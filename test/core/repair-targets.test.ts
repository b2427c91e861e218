/**
 * The time-window searches behind a repair's target and the CLI's stand-in
 * parent, against plain reference implementations written from their
 * definitions (every row looked at, no order assumed), over many small
 * random sessions; and their cost where thousands of rows share one
 * timestamp, which the first versions paid quadratically.
 */
import { describe, expect, it } from 'vitest';
import { TIMESTAMP_BRIDGE_MS } from '../../src/core/analysis.js';
import { MinTree } from '../../src/core/collections.js';
import type { RecordSummary } from '../../src/core/records.js';
import { eligible, latestWithinWindow, relinkTarget, renamedCopies } from '../../src/core/repair-targets.js';
import { standInAmong } from '../../src/core/resume-cli.js';
import { resumeModel } from '../../src/core/resume.js';
import type { SessionIndex } from '../../src/core/session-index.js';
import { lintIndex } from '../../src/engine/linter.js';
import { RULES } from '../../src/rules/index.js';
import { assistant, compactBoundary, iso, jsonl, progress, system, T0, toolResult, user, uuidOf } from '../helpers/records.js';
import { sameTimeSession } from '../support/big-session.js';
import { indexText } from '../support/corpus.js';
import { prng } from '../support/tree.js';

type Random = () => number;

const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** Offsets from T0 that make equal times, times 5 s apart (in the window) and 5.001 s apart (out of it) common. */
const OFFSETS = [0, 0, 0, 1, 999, 1_000, 2_500, 4_999, 5_000, 5_001, 6_000, 10_000, 10_000];

function timestamp(random: Random, previous: number): { timestamp?: string; omit?: string[] } {
  const roll = random();
  if (roll < 0.06) return { omit: ['timestamp'] };
  if (roll < 0.12) return { timestamp: pick(random, ['not a time', '', '2026-13-45T99:00:00Z']) };
  if (roll < 0.4) return { timestamp: iso(previous) }; // the previous row's time
  return { timestamp: iso(T0 + pick(random, OFFSETS)) }; // often earlier than the previous row's
}

/**
 * A session of up to 30 rows drawn at random: typed prompts (some with the
 * same text, so rewinds and abandoned attempts), answers, tool calls and
 * results, responses split over rows, system, progress and compact-boundary
 * rows; parents that are the previous row, an earlier one, a later one
 * (cycles), null or missing; repeated uuids, sidechain rows, and times
 * equal, out of order, missing or unreadable.
 */
function randomSession(random: Random): { text: string; role: 'main' | 'subagent' } {
  const role = random() < 0.15 ? 'subagent' : 'main';
  const count = 2 + Math.floor(random() * 29);
  const ids = Array.from({ length: count }, (_, i) => `r${i}`);
  const calls: string[] = [];
  const responses: string[] = [];
  const records = [];
  let time = T0;
  for (let i = 0; i < count; i++) {
    const roll = random();
    const parent =
      roll < 0.1 ? null
      : roll < 0.55 ? (ids[i - 1] ?? null)
      : roll < 0.75 ? (ids[Math.floor(random() * Math.max(i, 1))] ?? null)
      : roll < 0.87 ? `ghost${Math.floor(random() * 3)}`
      : pick(random, ids); // a later row, or the row itself: a cycle
    const id = i > 2 && random() < 0.06 ? (ids[Math.floor(random() * i)] as string) : (ids[i] as string); // a repeated uuid
    const when = timestamp(random, time);
    if (when.timestamp !== undefined && !Number.isNaN(Date.parse(when.timestamp))) time = Date.parse(when.timestamp);
    const common = { parent, isSidechain: role === 'subagent' ? random() < 0.9 : random() < 0.15, ...when };
    const kind = random();
    if (kind < 0.3) {
      records.push(user(id, { ...common, text: random() < 0.4 ? 'try again' : `prompt ${i}` }));
    } else if (kind < 0.6) {
      const toolUse = random() < 0.4 ? [`t${i}`] : undefined;
      if (toolUse !== undefined) calls.push(`t${i}`);
      const messageId = responses.length > 0 && random() < 0.2 ? pick(random, responses) : `m${i}`;
      responses.push(messageId);
      records.push(assistant(id, { ...common, toolUse, messageId }));
    } else if (kind < 0.75 && calls.length > 0) {
      records.push(toolResult(id, { ...common, toolUseId: pick(random, calls), ...(random() < 0.3 ? { sourceToolAssistant: pick(random, ids) } : {}) }));
    } else if (kind < 0.85) {
      records.push(system(id, common));
    } else if (kind < 0.93) {
      records.push(progress(id, common));
    } else {
      records.push(compactBoundary(id, { logicalParent: pick(random, ids), isSidechain: common.isSidechain, ...when }));
    }
  }
  return { text: jsonl(records), role };
}

function isConversational(r: RecordSummary): boolean {
  return r.type === 'user' || r.type === 'assistant';
}

/** Of the eligible user and assistant rows written before `r` and at most 5 s older, the latest by time, then file order. */
function referenceBridge(index: SessionIndex, r: RecordSummary, exclude?: ReadonlySet<RecordSummary>): RecordSummary | undefined {
  if (Number.isNaN(r.time)) return undefined;
  let best: RecordSummary | undefined;
  for (const c of index.effectiveRecords()) {
    if (!isConversational(c) || c.uuid === undefined || Number.isNaN(c.time)) continue;
    if (c.ordinal >= r.ordinal || c.time > r.time || r.time - c.time > TIMESTAMP_BRIDGE_MS) continue;
    if (!eligible(index, r, c, exclude)) continue;
    if (best === undefined || c.time > best.time || (c.time === best.time && c.ordinal > best.ordinal)) best = c;
  }
  return best;
}

/** Of the rows on `child`'s side, not on the chain and at most 5 s older, those of the latest time; of them, the first in `rows`. */
function referenceStandIn(rows: readonly RecordSummary[], child: RecordSummary, onChain: (r: RecordSummary) => boolean): RecordSummary | undefined {
  if (Number.isNaN(child.time)) return undefined;
  const candidates = rows.filter(
    (c) => c !== child && c.isSidechain === child.isSidechain && !onChain(c) && c.time <= child.time && child.time - c.time <= TIMESTAMP_BRIDGE_MS,
  );
  const latest = Math.max(...candidates.map((c) => c.time));
  return candidates.find((c) => c.time === latest);
}

describe('MinTree', () => {
  it('finds the last position of a range whose value is below a limit, as a scan of the range does', () => {
    const random = prng(7);
    for (let round = 0; round < 300; round++) {
      const values = Array.from({ length: Math.floor(random() * 40) }, () => Math.floor(random() * 12));
      const tree = new MinTree(values);
      for (let q = 0; q < 40; q++) {
        const from = Math.floor(random() * (values.length + 1));
        const to = from + Math.floor(random() * (values.length + 1 - from));
        const limit = Math.floor(random() * 14);
        let expected = -1;
        for (let i = to - 1; i >= from; i--) {
          if ((values[i] as number) < limit) {
            expected = i;
            break;
          }
        }
        expect(tree.lastBelow(from, to, limit), `${JSON.stringify(values)} [${from}, ${to}) < ${limit}`).toBe(expected);
      }
    }
  });
});

describe('the row a broken link is bridged to (within 5 s)', () => {
  it('is the reference answer for every row of 1,500 random sessions, with and without rows excluded', () => {
    const random = prng(20_260_105);
    let found = 0;
    let asked = 0;
    for (let session = 0; session < 1_500; session++) {
      const { text, role } = randomSession(random);
      const index = indexText(text, { role });
      // Half the time after the model is built, which marks the copies of repeated uuids that stay distinct.
      if (random() < 0.5) {
        const model = resumeModel(index);
        for (const r of index.records) expect(model.repairsOf(r)).toEqual(model.repairs.filter((x) => x.record === r));
      }
      for (const r of index.records) {
        const excluded = new Set(index.records.filter(() => random() < 0.2));
        for (const exclude of [undefined, excluded]) {
          const got = latestWithinWindow(index, r, exclude);
          expect(got?.line, `session ${session}, line ${r.line}\n${text}`).toBe(referenceBridge(index, r, exclude)?.line);
          asked++;
          if (got !== undefined) found++;
        }
      }
    }
    // The sessions are varied enough to have answers, and not only answers.
    expect(found).toBeGreaterThan(asked / 10);
    expect(found).toBeLessThan(asked * 0.9);
  });
});

describe("the CLI's stand-in for a missing parent", () => {
  it('is the reference answer over random rows with equal, close and far times', () => {
    const random = prng(99);
    let found = 0;
    for (let round = 0; round < 3_000; round++) {
      const count = Math.floor(random() * 25);
      const rows = Array.from({ length: count }, (_, ordinal) => ({ ordinal, time: T0 + pick(random, OFFSETS), isSidechain: random() < 0.2 }) as unknown as RecordSummary);
      // By time, ties in the order drawn (the map order of the real table).
      rows.sort((a, b) => a.time - b.time);
      const onChain = new Set(rows.filter(() => random() < 0.3));
      const child =
        rows.length > 0 && random() < 0.6
          ? pick(random, rows)
          : ({ ordinal: -1, time: random() < 0.1 ? Number.NaN : T0 + pick(random, OFFSETS), isSidechain: random() < 0.2 } as unknown as RecordSummary);
      const got = standInAmong(rows, child, (c) => onChain.has(c));
      expect(got).toBe(referenceStandIn(rows, child, (c) => onChain.has(c)));
      if (got !== undefined) found++;
    }
    expect(found).toBeGreaterThan(1_000);
  });
});

describe('rows that share one timestamp', () => {
  /** The least of three timings of the checks that read repair targets and stand-ins, on a file of `records` rows. */
  function checkTime(records: number): number {
    const text = sameTimeSession(records);
    const only = new Set(['phantom-parent', 'orphan-root']);
    let best = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3; run++) {
      const index = indexText(text); // a new one each time: the model is cached per index
      const started = performance.now();
      lintIndex(index, { rules: RULES, severities: new Map(), only });
      best = Math.min(best, performance.now() - started);
    }
    return best;
  }

  it('cost time in proportion to the rows, not their square: four times the rows take well under eight times as long', () => {
    checkTime(2_500); // warm up the compiler
    const small = checkTime(5_000);
    const large = checkTime(20_000);
    // Quadratic (every orphan looking over every row of the same time) was 16x and more.
    expect(large / small, `${small.toFixed(0)} ms, then ${large.toFixed(0)} ms`).toBeLessThan(8);
  });
});

describe('relink targets through reused uuids', () => {
  it('end when a rewind point leads back to the row being asked for (a prompt below its own previous row through a reused uuid)', () => {
    // Found by fuzzing the SDK model: q2's parent q1 hangs from a1, a uuid the later row a2 reuses, whose parent is the
    // orphan p4 itself; relinkTarget(p4) -> rewindPoint -> relinkTarget(p4) recursed until the stack ran out.
    const u = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
    const row = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, sessionId: 's', ...o });
    const text = [
      row({ parentUuid: u(1), type: 'user', uuid: u(2), message: { role: 'user', content: 'prompt one' }, timestamp: iso(T0) }),
      row({ parentUuid: u(2), type: 'user', uuid: u(3), message: { role: 'user', content: 'prompt two' }, timestamp: iso(T0 + 1_000) }),
      row({ parentUuid: u(3), type: 'assistant', uuid: u(1), message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'answer one' }] }, timestamp: iso(T0 + 2_000) }),
      row({ parentUuid: u(4), type: 'user', uuid: u(5), message: { role: 'user', content: 'prompt four' }, timestamp: iso(T0 + 3_000) }),
      row({ parentUuid: u(5), type: 'assistant', uuid: u(1), message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'answer two' }] }, timestamp: iso(T0 + 4_000) }),
      '',
    ].join('\n');
    const index = indexText(text);
    const model = resumeModel(index);
    expect(model.repairs.length).toBeGreaterThan(0);
    expect(() => lintIndex(index, { rules: RULES, severities: new Map() })).not.toThrow();
  });
});

describe('relink target where the clock steps back', () => {
  // The shape of a corpus capture (claudeless, bash-permission-dialog): the
  // "[Request interrupted by user for tool use]" row is stamped seconds after
  // the rows written below it. With the next row's parent lost, the time
  // window skips the interrupt (its time is after the orphan's) and bridges
  // to the tool result before it, which the real CLI then resumed without
  // the interrupt; the file's order names the row it hung from.
  const interrupted = (interruptAt: number) =>
    jsonl([
      user('u1', { timestamp: iso(T0) }),
      assistant('a1', { parent: 'u1', toolUse: ['t1'], timestamp: iso(T0 + 1_000) }),
      toolResult('r1', { parent: 'a1', toolUseId: 't1', timestamp: iso(T0 + 1_100) }),
      user('i1', { parent: 'r1', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }], timestamp: iso(T0 + interruptAt) }),
      user('m1', { parent: 'ghost', text: '<local-command-caveat>Caveat: local command</local-command-caveat>', timestamp: iso(T0 + 1_800), extra: { isMeta: true } }),
    ]);

  /** The target of `orphan`'s broken link in `text`, its reason and the other rows offered, by short id. */
  const choiceIn = (text: string, orphan: string) => {
    const index = indexText(text);
    const choice = relinkTarget(index, index.byUuid.get(uuidOf(orphan)) as RecordSummary);
    return { target: choice?.target.uuid, reason: choice?.reason, alternatives: choice?.alternatives.map((r) => r.uuid) };
  };

  it('is the row written just before, the bridge its alternative', () => {
    expect(choiceIn(interrupted(5_800), 'm1')).toEqual({ target: uuidOf('i1'), reason: 'previous', alternatives: [uuidOf('r1')] });
  });

  it('stays the bridge when the row before is stamped minutes after (another branch written out of order)', () => {
    expect(choiceIn(interrupted(120_000), 'm1')).toEqual({ target: uuidOf('r1'), reason: 'bridge', alternatives: [uuidOf('i1')] });
  });

  it('stays the bridge when the times agree with the file', () => {
    expect(choiceIn(interrupted(1_500), 'm1')).toEqual({ target: uuidOf('i1'), reason: 'bridge', alternatives: [] });
  });

  it('is the row written just before when a row written earlier is stamped later (a command\'s caveat after the command)', () => {
    // The shape of a corpus session (claude-manager): the caveat of /cost is written first and stamped 1 ms after its command row.
    const text = jsonl([
      user('c1', { text: '<local-command-caveat>Caveat</local-command-caveat>', timestamp: iso(T0 + 1), extra: { isMeta: true } }),
      user('c2', { parent: 'c1', text: '<command-name>/cost</command-name>', timestamp: iso(T0) }),
      user('c3', { parent: 'ghost', text: '<local-command-stdout>cost</local-command-stdout>', timestamp: iso(T0 + 1) }),
    ]);
    expect(choiceIn(text, 'c3')).toEqual({ target: uuidOf('c2'), reason: 'previous', alternatives: [uuidOf('c1')] });
  });
});

describe('the rows that belong with a reused uuid\'s later copy', () => {
  it('leave out a row of the same response written before the copy (it hangs from the earlier copy)', () => {
    // A planted shape on a real session (claude-code-log): the tool_use row of a response reuses the uuid of
    // the tool result the response's text row hangs from. The text row, written first, shares the copy's
    // message.id, and was moved under the copy, making a cycle the duplicate-uuid fix would not apply.
    const text = jsonl([
      user('u1', { timestamp: iso(T0) }),
      assistant('a1', { parent: 'u1', toolUse: ['t1'], messageId: 'm1', timestamp: iso(T0 + 1_000) }),
      toolResult('X', { parent: 'a1', toolUseId: 't1', timestamp: iso(T0 + 2_000) }),
      assistant('a2', { parent: 'X', text: 'let me look', messageId: 'm2', timestamp: iso(T0 + 3_000) }),
      assistant('X', { parent: 'a2', toolUse: ['t2'], messageId: 'm2', timestamp: iso(T0 + 4_000) }),
      toolResult('r2', { parent: 'X', toolUseId: 't2', timestamp: iso(T0 + 5_000) }),
    ]);
    const index = indexText(text);
    const renamed = renamedCopies(index, () => true);
    expect(renamed).toHaveLength(1);
    expect(renamed[0]?.record.line).toBe(5);
    expect(renamed[0]?.children.map((c) => c.uuid)).toEqual([uuidOf('r2')]);
  });
});
