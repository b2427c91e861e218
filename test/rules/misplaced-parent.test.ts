import rule from '../../src/rules/misplaced-parent.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, progress, system, toolResult, user } from '../helpers/records.js';
import type { JsonObject } from '../../src/core/types.js';

/** The row as the hive-mind extractor leaves it: no `message.id` (SOURCES.md, alignment-hive). */
function withoutMessageId(record: JsonObject): JsonObject {
  const { id: _dropped, ...message } = record.message as JsonObject;
  return { ...record, message };
}

ruleTester(rule, {
  valid: [
    {
      // Found by running fixes of random files through the real CLI: relinking d to b, as a row of the
      // response b began, made resume lose c. An id that comes back after another response is a new response.
      name: 'a response id reused after another response: a new response, not a stray of the first',
      records: [
        user('a'),
        assistant('b', { parent: 'a', messageId: 'M1', text: 'answer one' }),
        assistant('c', { parent: 'b', messageId: 'M2', text: 'answer two' }),
        assistant('d', { parent: 'c', messageId: 'M1', text: 'answer three' }),
      ],
    },
    {
      // Found by fixing damaged corpus files (two rows swapped): a1b, stamped before u2, was flagged as
      // the first row of a response answering u2. Rows moved out of place, not a link past what lies between.
      name: 'a response row written after a user row it is stamped before',
      records: [
        user('u1', { timestamp: '2026-01-05T03:00:03.000Z' }),
        assistant('a1', { parent: 'u1', messageId: 'M1', text: 'first block', timestamp: '2026-01-05T03:00:04.000Z' }),
        assistant('a2', { parent: 'a1', messageId: 'M2', text: 'another answer', timestamp: '2026-01-05T03:00:30.000Z' }),
        user('u2', { parent: 'a2', timestamp: '2026-01-05T03:00:40.000Z' }),
        assistant('a1b', { parent: 'a1', messageId: 'M1', text: 'second block', timestamp: '2026-01-05T03:00:06.000Z' }),
      ],
    },
    {
      // The same from the other side: the parent is stamped after the user row written above the response.
      name: 'a response under a parent stamped after the user row written before the response',
      records: [
        user('u1', { timestamp: '2026-01-05T03:00:00.000Z' }),
        assistant('p1', { parent: 'u1', text: 'moved up', timestamp: '2026-01-05T03:00:15.000Z' }),
        user('u2', { parent: 'u1', timestamp: '2026-01-05T03:00:10.000Z' }),
        assistant('a1', { parent: 'p1', text: 'the answer', timestamp: '2026-01-05T03:00:20.000Z' }),
      ],
    },
    {
      name: 'a tool result under its call, the next response under the result',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), toolResult('r1', { parent: 'a1', toolUseId: 't1' }), assistant('a2', { parent: 'r1' })],
    },
    {
      // claude-manager …/d3b30efc-….jsonl: a hook's system row sits between a call and its result.
      name: 'a tool result under a hook row that hangs from its call',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        system('h1', { parent: 'a1', subtype: 'informational' }),
        toolResult('r1', { parent: 'h1', toolUseId: 't1' }),
      ],
    },
    {
      name: 'parallel calls: the second result under the first result of the same response',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'm1', toolUse: ['t1'] }),
        assistant('a1b', { parent: 'a1', messageId: 'm1', toolUse: ['t2'] }),
        toolResult('r1', { parent: 'a1b', toolUseId: 't1' }),
        toolResult('r2', { parent: 'r1', toolUseId: 't2' }),
        assistant('a2', { parent: 'r2' }),
      ],
    },
    {
      name: 'a response continued under a progress row of its own call',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'm1', toolUse: ['t1'] }),
        progress('p1', { parent: 'a1', toolUseId: 't1' }),
        assistant('a1b', { parent: 'p1', messageId: 'm1', text: 'meanwhile' }),
      ],
    },
    {
      name: 'a rewind: a prompt typed again under an older answer is not a misplaced parent',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), assistant('a2', { parent: 'u2' }), user('u3', { parent: 'a1' }), assistant('a3', { parent: 'u3' })],
    },
    {
      // alignment-hive raw session (SOURCES.md): five parallel calls, their results one under the other.
      name: 'a result under the result before it, even when that one answers no call the file holds',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'm1', toolUse: ['t1'] }),
        assistant('a1b', { parent: 'a1', messageId: 'm1', toolUse: ['t2'] }),
        toolResult('r1', { parent: 'a1b', toolUseId: 'gone' }),
        toolResult('r2', { parent: 'r1', toolUseId: 't1' }),
      ],
    },
    {
      // alignment-hive extracted/511c359f-….jsonl (SOURCES.md): the hive-mind extractor strips
      // message.id; two parallel calls, the first call's result under the second call's result.
      name: 'parallel calls without message ids: the first result under the second result, its call up the run of calls',
      records: [
        user('u1'),
        withoutMessageId(assistant('a1', { parent: 'u1', toolUse: ['t1'] })),
        withoutMessageId(assistant('a1b', { parent: 'a1', toolUse: ['t2'] })),
        toolResult('r2', { parent: 'a1b', toolUseId: 't2' }),
        toolResult('r1', { parent: 'r2', toolUseId: 't1' }),
        withoutMessageId(assistant('a2', { parent: 'r1' })),
      ],
    },
    {
      name: 'a tool result whose call is nowhere is left to orphan-tool-result',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), toolResult('r1', { parent: 'u1', toolUseId: 'gone' })],
    },
  ],
  invalid: [
    {
      name: 'without message ids, a result under another turn\'s result: its call is not up the run of calls',
      records: [
        user('u1'),
        withoutMessageId(assistant('a1', { parent: 'u1', toolUse: ['t1'] })),
        toolResult('r1', { parent: 'a1', toolUseId: 't1' }),
        withoutMessageId(assistant('a2', { parent: 'r1', toolUse: ['t2'] })),
        toolResult('r2', { parent: 'a2', toolUseId: 't2' }),
        toolResult('r1b', { parent: 'r2', toolUseId: 't1' }),
      ],
      errors: [{ messageId: 'toolResult', line: 6, uuid: 'r1b', severity: 'warning', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'with message ids, parallel-looking calls of two responses are still told apart',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'm1', toolUse: ['t1'] }),
        assistant('a1b', { parent: 'a1', messageId: 'm2', toolUse: ['t2'] }),
        toolResult('r2', { parent: 'a1b', toolUseId: 't2' }),
        toolResult('r1', { parent: 'r2', toolUseId: 't1' }),
      ],
      errors: [{ messageId: 'toolResult', line: 5, uuid: 'r1', severity: 'warning', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a tool result hanging from a row before its call: resume skips the call',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        toolResult('r1', { parent: 'u1', toolUseId: 't1' }),
        assistant('a2', { parent: 'r1' }),
      ],
      errors: [{ messageId: 'toolResult', line: 3, uuid: 'r1', fix: { applicability: 'safe' } }],
    },
    {
      name: 'the last row of a response hanging from an older turn',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        user('u2', { parent: 'a1' }),
        assistant('a2', { parent: 'u2', messageId: 'm2', text: 'first block' }),
        assistant('a2b', { parent: 'a1', messageId: 'm2', text: 'second block' }),
      ],
      errors: [{ messageId: 'response', line: 5, uuid: 'a2b', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a response hanging from a row written before the prompt it answers',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        user('u2', { parent: 'a1' }),
        assistant('a2', { parent: 'u2' }),
        user('u3', { parent: 'a2' }),
        assistant('a3', { parent: 'a1' }),
      ],
      // Nothing in the row names the prompt it answers: which row it continues is inferred.
      errors: [{ messageId: 'answer', line: 6, uuid: 'a3', fix: { applicability: 'unsafe' } }],
    },
    {
      // The stamps agree with the file: a response id back after another response is a new response,
      // and under the earlier row of that id it skips the response and the prompt in between.
      name: 'a response id back after another response, stamped after the prompt, under the id\'s earlier row',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'M1', text: 'first answer' }),
        user('u2', { parent: 'a1' }),
        assistant('a2', { parent: 'u2', messageId: 'M2', text: 'another answer' }),
        user('u3', { parent: 'a2' }),
        assistant('a1b', { parent: 'a1', messageId: 'M1', text: 'the id again' }),
      ],
      errors: [{ messageId: 'answer', line: 6, uuid: 'a1b', fix: { applicability: 'unsafe' } }],
    },
  ],
});
