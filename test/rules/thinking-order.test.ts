import { describe, expect, it } from 'vitest';
import rule from '../../src/rules/thinking-order.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { fixTwice, thinkingBlock } from '../helpers/fix-twice.js';
import { assistant, toolResult, user } from '../helpers/records.js';

const think = (id: string, parent: string, extra: object = {}) =>
  assistant(id, { parent, messageId: 'M', content: [thinkingBlock(`thought ${id}`)], ...extra });

// One response written one block per row, as Claude Code does; here the
// text row went above the thinking row (measured on the CLI: it sends
// [text, thinking, tool_use] and the API answers 400).
const textFirst = [
  user('u1'),
  assistant('a1', { parent: 'u1', messageId: 'M', text: 'Let me look.' }),
  think('k1', 'a1'),
  assistant('a2', { parent: 'k1', messageId: 'M', toolUse: ['t1'] }),
  toolResult('r1', { parent: 'a2', toolUseId: 't1' }),
  assistant('a3', { parent: 'r1', text: 'Done.' }),
];

ruleTester(rule, {
  valid: [
    {
      name: 'thinking, then text, then a tool call',
      records: [user('u1'), think('k1', 'u1'), assistant('a1', { parent: 'k1', messageId: 'M', text: 'Let me look.' })],
    },
    {
      // Real 2.1.x sessions write a blank "\n\n" text row before the thinking row; the CLI drops blank text.
      name: 'a blank text row before the thinking row',
      records: [user('u1'), assistant('a0', { parent: 'u1', messageId: 'M', text: '\n\n' }), think('k1', 'a0'), assistant('a1', { parent: 'k1', messageId: 'M', text: 'Hi.' })],
    },
    {
      name: 'a tool call before the thinking row (the CLI puts tool calls last)',
      records: [user('u1'), assistant('a0', { parent: 'u1', messageId: 'M', toolUse: ['t1'] }), think('k1', 'a0'), toolResult('r1', { parent: 'k1', toolUseId: 't1' })],
    },
    {
      name: 'text of an earlier response above a new response that thinks first',
      records: [user('u1'), assistant('a0', { parent: 'u1', text: 'Earlier.' }), user('u2', { parent: 'a0' }), think('k1', 'u2')],
    },
  ],
  invalid: [
    {
      name: 'a text row above the thinking row of its response',
      records: textFirst,
      errors: [{ messageId: 'textFirst', line: 3, uuid: 'k1', fix: { applicability: 'safe' } }],
    },
    {
      name: 'on a branch resume does not send: a warning',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'M', text: 'Let me look.' }),
        think('k1', 'a1'),
        assistant('b1', { parent: 'u1', text: 'Another attempt.' }),
      ],
      errors: [{ messageId: 'textFirst', line: 3, uuid: 'k1', severity: 'warning', fix: { applicability: 'safe' } }],
    },
  ],
});

describe('thinking-order fix', () => {
  it('puts the thinking row first: the request is valid, nothing is lost, a second fix changes nothing', async () => {
    const fixed = await fixTwice(textFirst);
    expect(fixed.plan.applied.map((a) => a.ruleId)).toEqual(['thinking-order']);
    expect(fixed.findings.filter((f) => f.ruleId === 'thinking-order')).toEqual([]);
    expect(fixed.apiValid).toBe(true);
    expect(fixed.loaded).toEqual([6, 6]);
    const lines = fixed.plan.after.toString().trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { message: { content: Array<{ type: string }> } }).message.content[0]?.type)).toEqual([
      undefined,
      'thinking',
      'text',
      'tool_use',
      'tool_result',
      'text',
    ]);
  });
});
