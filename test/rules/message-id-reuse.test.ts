import { describe, expect, it } from 'vitest';
import rule from '../../src/rules/message-id-reuse.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { fixTwice, thinkingBlock } from '../helpers/fix-twice.js';
import { assistant, toolResult, user } from '../helpers/records.js';

const think = (id: string, parent: string, messageId: string) => assistant(id, { parent, messageId, content: [thinkingBlock(`thought ${id}`)] });

// The final answer carries the message.id of the tool call before it: the
// CLI merges both responses into one message, past the tool result, with
// thinking of two API calls in the latest assistant message.
const reused = [
  user('u1'),
  think('k1', 'u1', 'M'),
  assistant('a1', { parent: 'k1', messageId: 'M', toolUse: ['t1'] }),
  toolResult('r1', { parent: 'a1', toolUseId: 't1' }),
  think('k2', 'r1', 'M'),
  assistant('a2', { parent: 'k2', messageId: 'M', text: 'Done.' }),
];

ruleTester(rule, {
  valid: [
    {
      name: 'each response its own id',
      records: [user('u1'), think('k1', 'u1', 'M'), assistant('a1', { parent: 'k1', messageId: 'M', toolUse: ['t1'] }), toolResult('r1', { parent: 'a1', toolUseId: 't1' }), think('k2', 'r1', 'N')],
    },
    {
      // Real 2.1.114 sessions keep one message.id over the sequential tool calls of a turn, thinking only at its start.
      name: 'one id over sequential tool calls without new thinking',
      records: [
        user('u1'),
        think('k1', 'u1', 'M'),
        assistant('a1', { parent: 'k1', messageId: 'M', toolUse: ['t1'] }),
        toolResult('r1', { parent: 'a1', toolUseId: 't1' }),
        assistant('a2', { parent: 'r1', messageId: 'M', toolUse: ['t2'] }),
        toolResult('r2', { parent: 'a2', toolUseId: 't2' }),
      ],
    },
    {
      name: 'a retry after a rewind that reused the id on another branch',
      records: [user('u1'), assistant('a1', { parent: 'u1', messageId: 'M' }), user('u2', { parent: 'u1' }), assistant('a2', { parent: 'u2', messageId: 'M' })],
    },
  ],
  invalid: [
    {
      name: 'thinking of two calls merged into the latest message',
      records: reused,
      errors: [{ messageId: 'reused', line: 5, uuid: 'k2', fix: { applicability: 'safe' } }],
    },
    {
      // Measured: after /exit the CLI adds "No response requested." of its own, which is then the latest message.
      name: 'thinking of two calls merged, but local command rows follow: a warning',
      records: [
        ...reused,
        user('x1', { parent: 'a2', text: '<command-name>/exit</command-name>' }),
        user('x2', { parent: 'x1', text: '<local-command-stdout>Bye!</local-command-stdout>' }),
      ],
      errors: [{ messageId: 'reused', line: 5, uuid: 'k2', severity: 'warning', fix: { applicability: 'safe' } }],
    },
    {
      name: 'the id again after a typed prompt: a warning',
      records: [user('u1'), assistant('a1', { parent: 'u1', messageId: 'M' }), user('u2', { parent: 'a1' }), assistant('a2', { parent: 'u2', messageId: 'M' })],
      errors: [{ messageId: 'reused', line: 4, uuid: 'a2', severity: 'warning', fix: { applicability: 'safe' } }],
    },
  ],
});

describe('message-id-reuse fix', () => {
  it('gives the later response a fresh id: the request is valid, nothing is lost, a second fix changes nothing', async () => {
    const fixed = await fixTwice(reused);
    expect(fixed.plan.applied.map((a) => a.ruleId)).toEqual(['message-id-reuse']);
    expect(fixed.findings.filter((f) => f.ruleId === 'message-id-reuse')).toEqual([]);
    expect(fixed.apiValid).toBe(true);
    expect(fixed.loaded).toEqual([6, 6]);
    const ids = fixed.plan.after.toString().trimEnd().split('\n').map((l) => (JSON.parse(l) as { message: { id?: string } }).message.id);
    expect(ids[1]).toBe(ids[2]);
    expect(ids[4]).toBe(ids[5]);
    expect(ids[4]).not.toBe(ids[1]);
  });
});
