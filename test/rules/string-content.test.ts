import rule from '../../src/rules/string-content.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, compactBoundary, compactSummary, toolResult, user } from '../helpers/records.js';

const blocks = (text: string) => [{ type: 'text', text }];

ruleTester(rule, {
  valid: [
    { name: 'prompts as arrays of blocks', records: [user('u1', { content: blocks('hi') }), assistant('a1', { parent: 'u1' })] },
    {
      name: 'tool results are arrays',
      records: [user('u1', { content: blocks('run it') }), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), toolResult('r1', { parent: 'a1', toolUseId: 't1' })],
    },
    { name: 'assistant string content is not this rule', records: [assistant('a1', { content: 'plain answer' })] },
    { name: 'a user row with no message body at all is not string content', records: [user('u1', { omit: ['message'] })] },
  ],
  invalid: [
    {
      // peers.md §3 row 11: legal, written for typed prompts; some readers drop it (wakatime-cli#1372).
      name: 'a typed prompt as a plain string',
      records: [user('u1', { text: 'fix the tests' }), assistant('a1', { parent: 'u1' })],
      errors: [{ messageId: 'string', line: 1, uuid: 'u1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'every string prompt is reported, including a compaction summary',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        compactBoundary('cb', { logicalParent: 'a1' }),
        compactSummary('s1', { parent: 'cb' }),
        user('u2', { parent: 's1', content: blocks('array prompt') }),
      ],
      errors: [
        { messageId: 'string', line: 1, uuid: 'u1', fix: { applicability: 'unsafe' } },
        { messageId: 'string', line: 4, uuid: 's1', fix: { applicability: 'unsafe' } },
      ],
    },
    {
      name: 'an empty string prompt',
      records: [user('u1', { text: '' })],
      errors: [{ messageId: 'string', line: 1, uuid: 'u1', fix: { applicability: 'unsafe' } }],
    },
  ],
});
