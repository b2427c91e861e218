import { describe, expect, it } from 'vitest';
import rule from '../../src/rules/blank-prompt.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { fixTwice } from '../helpers/fix-twice.js';
import { assistant, user } from '../helpers/records.js';

// Measured on the CLI (2.1.330): a blank string prompt is sent as a blank
// text block and the API answers 400; the same prompt in array form is sent
// as the CLI's "(no content)" placeholder.
const blankOnChain = [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1', text: '' }), assistant('a2', { parent: 'u2' })];

ruleTester(rule, {
  valid: [
    { name: 'typed prompts with text', records: [user('u1'), assistant('a1', { parent: 'u1' })] },
    {
      name: 'a blank prompt in array form (the CLI sends its placeholder)',
      records: [user('u1', { content: [{ type: 'text', text: '' }] }), assistant('a1', { parent: 'u1' })],
    },
    { name: 'an empty array', records: [user('u1', { content: [] }), assistant('a1', { parent: 'u1' })] },
  ],
  invalid: [
    {
      name: 'an empty string prompt on the resumed chain',
      records: blankOnChain,
      errors: [{ messageId: 'blank', line: 3, uuid: 'u2', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a whitespace-only first prompt',
      records: [user('u1', { text: ' \n\t ' }), assistant('a1', { parent: 'u1' })],
      errors: [{ messageId: 'blank', line: 1, uuid: 'u1', fix: { applicability: 'safe' } }],
    },
    {
      // Measured: sharing a user message with a meta row, the blank block is dropped by the CLI.
      name: 'merged with the meta row before it: the request passes, a warning',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        user('m1', { parent: 'a1', text: '<local-command-caveat>Caveat</local-command-caveat>', extra: { isMeta: true } }),
        user('u2', { parent: 'm1', text: '' }),
        assistant('a2', { parent: 'u2' }),
      ],
      errors: [{ messageId: 'blank', line: 4, uuid: 'u2', severity: 'warning', fix: { applicability: 'safe' } }],
    },
    {
      name: 'on a branch resume does not send: a warning',
      records: [user('u1'), user('u2', { parent: 'u1', text: '' }), assistant('a2', { parent: 'u1' })],
      errors: [{ messageId: 'blank', line: 2, uuid: 'u2', severity: 'warning', fix: { applicability: 'safe' } }],
    },
  ],
});

describe('blank-prompt fix', () => {
  it('writes the prompt as an array: the request is valid, nothing is lost, a second fix changes nothing', async () => {
    const fixed = await fixTwice(blankOnChain);
    expect(fixed.plan.applied.map((a) => a.ruleId)).toEqual(['blank-prompt']);
    expect(fixed.findings.filter((f) => f.ruleId === 'blank-prompt')).toEqual([]);
    expect(fixed.apiValid).toBe(true);
    expect(fixed.loaded[1]).toBe(fixed.loaded[0]);
    expect(fixed.plan.after.toString().split('\n')[2]).toContain('"content":[{"type":"text","text":""}]');
  });
});
