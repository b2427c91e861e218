/**
 * Small files with what `claude -p --resume` (2.1.330) sends for each: the
 * CLI model's unit cases (test/core/resume.test.ts) and, run through the
 * real binary, a check that each expectation is what the CLI does
 * (test/oracle-cli/cases.test.ts). `loaded` lists the rows counted as
 * `resume.loaded`: sent, not meta, not sidechain, a line of their own.
 */
import { expect } from 'vitest';
import type { ResumeModel } from '../../src/core/resume.js';
import { assistant, compactBoundary, compactSummary, iso, jsonl, lastPrompt, resetClock, T0, toolResult, user, uuidOf } from '../helpers/records.js';

export interface CliCase {
  readonly name: string;
  /** The file's text; built fresh each time (the record clock is global). */
  readonly text: () => string;
  readonly loaded: readonly string[];
  /** Compare as sets (rows put back by `message.id` come in the CLI's own order). */
  readonly ordered?: boolean;
  /** More to check of the model. */
  readonly also?: (model: ResumeModel) => void;
}

const ids = (...names: string[]): string[] => names.map(uuidOf);
const line = (r: Record<string, unknown>): string => JSON.stringify(r);

function bridgeAfter(gap: number): string {
  resetClock();
  const records = [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), assistant('a2', { parent: 'u2' })];
  records.push(user('u3', { parent: 'gone', gapMs: gap }), assistant('a3', { parent: 'u3' }));
  return jsonl(records);
}

/** u1 a1 u2 a2, u2's parentUuid written as `value`, 1 s (near) or a minute (far) after a1. */
function malformedParent(value: unknown, near: boolean): string {
  resetClock();
  return jsonl([
    user('u1'),
    assistant('a1', { parent: 'u1' }),
    user('u2', { extra: { parentUuid: value }, ...(near ? {} : { gapMs: 60_000 }) }),
    assistant('a2', { parent: 'u2' }),
  ]);
}

/** A parentUuid that is neither a string nor null: a truthy one is looked up and bridged like a missing uuid, a falsy one ends the walk. */
const MALFORMED_PARENT_CASES: readonly CliCase[] = [
  ...[{}, [], 5, true].map((value) => ({
    name: `bridges a parentUuid of ${JSON.stringify(value)} to a row 1 s older, as a uuid it cannot find`,
    text: () => malformedParent(value, true),
    loaded: ids('u1', 'a1', 'u2', 'a2'),
  })),
  ...[{}, 5].map((value) => ({
    name: `stops at a parentUuid of ${JSON.stringify(value)} with no row within 5 s`,
    text: () => malformedParent(value, false),
    loaded: ids('u2', 'a2'),
  })),
  ...[false, ''].map((value) => ({
    name: `stops at a parentUuid of ${JSON.stringify(value)} even with a row 1 s older`,
    text: () => malformedParent(value, true),
    loaded: ids('u2', 'a2'),
  })),
];

/**
 * a1 written again later under its uuid (same type and parent) with the
 * message `second` (or the same message, one timestamp later): the CLI keeps
 * the last body, at the first one's place.
 */
function rewrittenReply(second: 'other message' | 'same message' | 'same message, keys reordered, other usage'): string {
  resetClock();
  const first = assistant('a1', { parent: 'u1', text: 'the first answer' });
  const later = { ...first, timestamp: iso(Date.parse(first.timestamp as string) + 1) };
  const message = first.message as Record<string, unknown>;
  const reordered = { ...later, message: { usage: { output_tokens: 7 }, ...Object.fromEntries(Object.entries(message).reverse()) } };
  const again =
    second === 'other message' ? assistant('a1', { parent: 'u1', text: 'the answer written again' }) : second === 'same message' ? later : reordered;
  return jsonl([user('u1'), first, user('u2', { parent: 'a1' }), again, assistant('a2', { parent: 'u2' })]);
}

const REWRITE_CASES: readonly CliCase[] = [
  {
    name: 'a reply written again with another message: the CLI sends the last body only, and the earlier one counts as a lost message',
    text: () => rewrittenReply('other message'),
    loaded: ids('u1', 'a1', 'u2', 'a2'),
    also: (model) => {
      expect(model.messages[1]?.excerpt).toBe('the answer written again');
      expect(model.intendedMessages.map((m) => m.excerpt)).toEqual(['prompt u1', 'the first answer', 'the answer written again', 'prompt u2', 'reply a2']);
      expect([model.loaded, model.total]).toEqual([4, 5]);
      expect(model.fidelity).toBe(0.8);
    },
  },
  ...([
    ['same message', 'the same message, one timestamp later'],
    ['same message, keys reordered, other usage', 'its message keys in another order and other token usage'],
  ] as const).map(
    ([variant, how]): CliCase => ({
      name: `a reply written again with ${how} is one message, and costs no fidelity`,
      text: () => rewrittenReply(variant),
      loaded: ids('u1', 'a1', 'u2', 'a2'),
      // Two lines of the same content: the oracle maps the one sent back to its uuid last, out of order.
      ordered: false,
      also: (model) => {
        expect([model.loaded, model.total]).toEqual([4, 4]);
        expect(model.fidelity).toBe(1);
      },
    }),
  ),
  // Found by running fixes of damaged corpus files through the real CLI (an agent file whose row was
  // duplicated, one copy's isSidechain changed): the later body takes the uuid, and when the row that
  // would be the leaf now reads as a sidechain row, there is no leaf, and no conversation.
  {
    name: 'the last reply written again as a sidechain row: the leaf reads as a sidechain row, and nothing is found',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1' }), assistant('a1', { parent: 'u1', text: 'the answer as a sidechain', isSidechain: true })]);
    },
    loaded: [],
  },
  {
    // The sidechain body is sent where the chain passes it, and not counted (as every sidechain row).
    name: 'a reply written again as a sidechain row below a later prompt: the chain passes its body',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), assistant('a1', { parent: 'u1', text: 'the answer as a sidechain', isSidechain: true })]);
    },
    loaded: ids('u1', 'u2'),
  },
];

/** The row Claude Code writes for a failed API call: `isApiErrorMessage`, model `<synthetic>`. */
function apiError(id: string, parent: string): Record<string, unknown> {
  const row = assistant(id, { parent, text: `API Error: 500 ${id}` });
  return { ...row, isApiErrorMessage: true, message: { ...(row.message as Record<string, unknown>), model: '<synthetic>' } };
}

/** API-error rows, and where the end of the history is for a call answered nowhere (each measured on the binary). */
const API_ERROR_AND_END_CASES: readonly CliCase[] = [
  {
    // Its text is not sent; between two rows that are, it counts, as a thinking-only row does.
    name: 'leaves an API-error row out of the request, and counts it between two rows that are sent',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1' }), apiError('e1', 'a1'), user('u2', { parent: 'e1' }), assistant('a2', { parent: 'u2' })]);
    },
    loaded: ids('u1', 'a1', 'e1', 'u2', 'a2'),
    // The oracle lists a row it counts without a block of its own last.
    ordered: false,
  },
  {
    name: 'an API-error row ending the history is not counted',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), apiError('e1', 'u2')]);
    },
    loaded: ids('u1', 'a1', 'u2'),
  },
  {
    name: 'an API-error row between two rows of one response: they merge again, and the result of its call is sent',
    text: () => {
      resetClock();
      return jsonl([
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'm1', text: 'let me look' }),
        apiError('e1', 'a1'),
        assistant('a1b', { parent: 'e1', messageId: 'm1', toolUse: ['c1'] }),
        toolResult('r1', { parent: 'a1b', toolUseId: 'c1' }),
      ]);
    },
    loaded: ids('u1', 'a1', 'e1', 'a1b', 'r1'),
    ordered: false,
  },
  {
    name: 'a call answered nowhere followed by a thinking-only reply is still at the end: sent, with a synthetic result',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1', toolUse: ['c1'] }), assistant('a2', { parent: 'a1', content: [{ type: 'thinking', thinking: 'hmm', signature: 'SigA' }] })]);
    },
    loaded: ids('u1', 'a1'),
  },
  {
    name: 'a call answered nowhere followed by an API-error row is not at the end: both are left out',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1', toolUse: ['c1'] }), apiError('e1', 'a1')]);
    },
    loaded: ids('u1'),
  },
  {
    name: 'the text and the call of one response, siblings at the end: the call is kept with its text',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1', messageId: 'm1', text: 'first block' }), assistant('a1b', { parent: 'u1', messageId: 'm1', toolUse: ['c1'] })]);
    },
    loaded: ids('u1', 'a1', 'a1b'),
    ordered: false,
  },
  {
    name: 'a row of text and a call answered nowhere, followed by a reply of another response: dropped whole',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1', text: 'before the call', toolUse: ['c1'] }), assistant('a2', { parent: 'a1', text: 'later text' })]);
    },
    loaded: ids('u1', 'a2'),
  },
];

/** u1 a1 (message m1) u2, then a reply of thinking alone with message.id `id`, ending the history. */
function thinkingOnlyLast(id: 'm1' | 'm2', signature: string): string {
  resetClock();
  return jsonl([
    user('u1'),
    assistant('a1', { parent: 'u1', messageId: 'm1' }),
    user('u2', { parent: 'a1' }),
    assistant('a2', { parent: 'u2', messageId: id, content: [{ type: 'thinking', thinking: 'hmm', signature }] }),
  ]);
}

/** A row of thinking alone, as a response of its own (each measured on the binary). */
const THINKING_ONLY_CASES: readonly CliCase[] = [
  {
    name: 'sends a thinking-only response ending the history when its message.id has another message before a real turn',
    text: () => thinkingOnlyLast('m1', 'SigT1'),
    loaded: ids('u1', 'a1', 'u2', 'a2'),
  },
  {
    name: 'does not send a thinking-only response ending the history whose message.id is its own',
    text: () => thinkingOnlyLast('m2', 'SigT2'),
    loaded: ids('u1', 'a1', 'u2'),
  },
  {
    name: 'sends a thinking-only response starting the history when its message.id has another message',
    text: () => {
      resetClock();
      return jsonl([
        assistant('a1', { parent: 'gone', messageId: 'm1', content: [{ type: 'thinking', thinking: 'hmm', signature: 'SigT3' }] }),
        user('u2', { parent: 'a1' }),
        assistant('a2', { parent: 'u2', messageId: 'm1' }),
      ]);
    },
    loaded: ids('a1', 'u2', 'a2'),
  },
];

/** u1 a1, a compaction (its boundary linked to a1 or, as Claude Code writes it, a root), then s1 u2 a2. */
function compacted(options: { checkpointBefore: boolean; linked: boolean }): string {
  resetClock();
  const boundary = compactBoundary('b1', { logicalParent: 'a1' });
  return jsonl([
    user('u1'),
    assistant('a1', { parent: 'u1' }),
    ...(options.checkpointBefore ? [lastPrompt({ leaf: 'a1' })] : []),
    options.linked ? { ...boundary, parentUuid: uuidOf('a1') } : boundary,
    compactSummary('s1', { parent: 'b1', text: 'summary of before' }),
    user('u2', { parent: 's1' }),
    assistant('a2', { parent: 'u2' }),
  ]);
}

/** `last-prompt` checkpoints: an explicit rewind, a compaction after one, an explicit clear (each measured on the binary). */
const CHECKPOINT_CASES: readonly CliCase[] = [
  {
    name: 'goes back to a checkpoint an explicit rewind wrote last, though the last row descends from it',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), assistant('a2', { parent: 'u2' }), lastPrompt({ leaf: 'a1', explicit: true })]);
    },
    loaded: ids('u1', 'a1'),
  },
  {
    name: 'a row written after an explicit rewind\'s checkpoint ends its hold: the new branch is resumed',
    text: () => {
      resetClock();
      return jsonl([
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        user('u2', { parent: 'a1' }),
        assistant('a2', { parent: 'u2' }),
        lastPrompt({ leaf: 'a1', explicit: true }),
        user('u3', { parent: 'a1' }),
        assistant('a3', { parent: 'u3' }),
      ]);
    },
    loaded: ids('u1', 'a1', 'u3', 'a3'),
  },
  {
    name: 'a compaction forgets the checkpoint written before it',
    text: () => compacted({ checkpointBefore: true, linked: false }),
    loaded: ids('s1', 'u2', 'a2'),
  },
  {
    name: 'a compact boundary linked to the history before it still starts what is sent',
    text: () => compacted({ checkpointBefore: false, linked: true }),
    loaded: ids('s1', 'u2', 'a2'),
  },
  {
    // With the calls in two responses the CLI goes back to the checkpoint (the oracle then credits the checkpoint's
    // own result row, whose block the pairing repair drops, so that control is not a case here).
    name: 'a checkpoint on the result of one of two parallel calls of one response, the last row below the other result: resumes from the last row',
    text: () => {
      resetClock();
      return jsonl([
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'm1', toolUse: ['c1'] }),
        assistant('a2', { parent: 'a1', messageId: 'm1', toolUse: ['c2'] }),
        toolResult('r1', { parent: 'a2', toolUseId: 'c1' }),
        toolResult('r2', { parent: 'a2', toolUseId: 'c2' }),
        assistant('a3', { parent: 'r2' }),
        lastPrompt({ leaf: 'r1' }),
      ]);
    },
    loaded: ids('u1', 'a1', 'a2', 'r1', 'r2', 'a3'),
    ordered: false,
  },
  {
    name: 'an explicit clear forgets the checkpoint before it',
    text: () => {
      resetClock();
      return jsonl([user('u1'), lastPrompt({ leaf: 'u1' }), lastPrompt({ leaf: null, explicit: true }), user('u2', { parent: null }), assistant('a2', { parent: 'u2' })]);
    },
    loaded: ids('u2', 'a2'),
  },
];

export const CLI_CASES: readonly CliCase[] = [
  ...THINKING_ONLY_CASES,
  ...CHECKPOINT_CASES,
  ...API_ERROR_AND_END_CASES,
  ...MALFORMED_PARENT_CASES,
  ...REWRITE_CASES,
  {
    name: 'drops mid-history an assistant row whose text comes with a call answered nowhere; the intended conversation keeps it',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1', text: 'let me look first', toolUse: ['t1'] }), user('u2', { parent: 'a1' }), assistant('a2', { parent: 'u2' })]);
    },
    loaded: ids('u1', 'u2', 'a2'),
    also: (model) => {
      expect(model.intendedMessages.map((m) => m.uuid)).toEqual(ids('u1', 'a1', 'u2', 'a2'));
      expect([model.loaded, model.total, model.sdk]).toEqual([3, 4, 4]);
    },
  },
  {
    name: 'keeps a call cut off at the end of the history (the CLI answers it itself): nothing lost',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1', text: 'let me look first', toolUse: ['t1'] })]);
    },
    loaded: ids('u1', 'a1'),
    also: (model) => expect([model.loaded, model.total]).toEqual([2, 2]),
  },
  {
    name: 'bridges a missing parent to a row written 5,000 ms earlier',
    text: () => bridgeAfter(5_000),
    loaded: ids('u1', 'a1', 'u2', 'a2', 'u3', 'a3'),
  },
  {
    name: 'does not bridge a missing parent to a row written 5,001 ms earlier',
    text: () => bridgeAfter(5_001),
    loaded: ids('u3', 'a3'),
  },
  {
    // A tool result and the interrupt marker after it share a timestamp.
    name: 'among stand-ins written in the same millisecond takes the one written first',
    text: () => {
      resetClock();
      const at = iso(T0 + 5_000);
      return jsonl([
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        toolResult('r1', { parent: 'a1', toolUseId: 't1', timestamp: at }),
        user('i1', { parent: 'r1', text: '[Request interrupted by user for tool use]', timestamp: at }),
        user('u2', { parent: 'gone', timestamp: iso(T0 + 6_000) }),
        assistant('a2', { parent: 'u2' }),
      ]);
    },
    loaded: ids('u1', 'a1', 'r1', 'u2', 'a2'),
  },
  {
    // u2 reaches the CLI (u3, its child, resumes the whole history) but, as
    // a record of a damaged line, is not a row of its own.
    name: 'keeps the first of two records glued on one line and loses the second',
    text: () => {
      resetClock();
      const rows = [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), assistant('a2', { parent: 'u2' })];
      const later = [user('u3', { parent: 'u2', gapMs: 60_000 }), assistant('a3', { parent: 'u3' })];
      return `${line(rows[0]!)}\n${line(rows[1]!)}\n${line(rows[2]!)}${line(rows[3]!)}\n${later.map(line).join('\n')}\n`;
    },
    loaded: ids('u1', 'a1', 'u3', 'a3'),
    also: (model) => {
      expect(model.chain.map((r) => r.uuid)).toContain(uuidOf('u2'));
      expect(model.chain.map((r) => r.uuid)).not.toContain(uuidOf('a2'));
    },
  },
  {
    name: 'does not count a tool result whose call is not on the chain (the CLI drops it)',
    text: () => {
      resetClock();
      return jsonl([
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        toolResult('r1', { parent: 'gone', toolUseId: 't1', gapMs: 60_000 }),
        assistant('a2', { parent: 'r1' }),
      ]);
    },
    loaded: ids('a2'),
  },
  {
    // The next row names the first block of the response, not the last.
    name: 'puts back the rows of a response the walk did not pass through',
    text: () => {
      resetClock();
      return jsonl([
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'm1', text: 'first block' }),
        assistant('a1b', { parent: 'a1', messageId: 'm1', toolUse: ['t1'] }),
        toolResult('r1', { parent: 'a1b', toolUseId: 't1' }),
        assistant('a2', { parent: 'a1' }),
      ]);
    },
    loaded: ids('u1', 'a1', 'a1b', 'r1', 'a2'),
    ordered: false,
  },
  {
    name: 'stops at a cycle whose repeat has no stand-in',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1' }), user('x1', { parent: 'x2', gapMs: 60_000 }), assistant('x2', { parent: 'x1' })]);
    },
    loaded: ids('x1', 'x2'),
  },
  {
    name: 'goes on through a cycle whose repeat has a stand-in',
    text: () => {
      resetClock();
      return jsonl([user('u1'), assistant('a1', { parent: 'u1' }), user('x1', { parent: 'x2' }), assistant('x2', { parent: 'x1' })]);
    },
    loaded: ids('u1', 'a1', 'x1', 'x2'),
  },
  {
    // The minimal case: L6 reuses L1's uuid, L7 names L6's own (lost) uuid.
    name: 'a conflicting duplicate uuid: the CLI loses the history before the reused row',
    text: () => {
      resetClock();
      return jsonl([
        user('q1'),
        assistant('a1', { parent: 'q1' }),
        user('q2', { parent: 'a1' }),
        assistant('a2', { parent: 'q2' }),
        user('q3', { parent: 'a2' }),
        { ...assistant('a3', { parent: 'q3' }), uuid: uuidOf('q1') },
        user('q4', { parent: 'a3', gapMs: 2_000 }),
        assistant('a4', { parent: 'q4' }),
      ]);
    },
    loaded: ids('q1', 'a2', 'q2', 'a1', 'q3', 'q4', 'a4'),
    ordered: false,
    also: (model) => {
      expect(model.total).toBe(8);
      expect(model.fidelity).toBeLessThan(1);
    },
  },
  {
    name: 'does not bridge a missing parent on a row whose timestamp Date.parse cannot read',
    text: () => {
      resetClock();
      return jsonl([
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        user('u2', { parent: 'gone', timestamp: '2026-01-05 at noon' }),
        assistant('a2', { parent: 'u2' }),
      ]);
    },
    loaded: ids('u2', 'a2'),
  },
  {
    // Rows out of time order: the stand-in is the latest row by time, wherever it sits in the file.
    name: 'bridges to a row written later in the file but earlier in time',
    text: () => {
      resetClock();
      return jsonl([
        user('u1', { timestamp: iso(T0) }),
        user('u2', { parent: 'gone', timestamp: iso(T0 + 4_000) }),
        assistant('a1', { parent: 'u1', timestamp: iso(T0 + 2_000) }),
        assistant('a2', { parent: 'u2', timestamp: iso(T0 + 5_000) }),
      ]);
    },
    loaded: ids('u1', 'a1', 'u2', 'a2'),
  },
  {
    // The leaf is the last row in file order, not the newest one, when the newest does not descend from it.
    name: 'resumes from the last row in the file even when another branch is newer',
    text: () => {
      resetClock();
      return jsonl([
        user('u1', { timestamp: iso(T0) }),
        user('u2', { parent: 'gone', timestamp: iso(T0 + 4_000) }),
        assistant('a2', { parent: 'u2', timestamp: iso(T0 + 5_000) }),
        assistant('a1', { parent: 'u1', timestamp: iso(T0 + 2_000) }),
      ]);
    },
    loaded: ids('u1', 'a1'),
  },
];
