import { describe, expect, it } from 'vitest';
import rule from '../../src/rules/server-tool-split.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { fixTwice } from '../helpers/fix-twice.js';
import { assistant, system, user } from '../helpers/records.js';

const call = (id: string, parent: string) =>
  assistant(id, { parent, messageId: 'M', content: [{ type: 'server_tool_use', id: 'srvtoolu_01abc', name: 'web_search', input: { query: 'q' } }] });
const result = (id: string, parent: string) =>
  assistant(id, {
    parent,
    messageId: 'M',
    content: [{ type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01abc', content: [{ type: 'web_search_result', url: 'https://example.com', title: 'E', encrypted_content: 'x' }] }],
  });
const localOutput = (id: string, parent: string) => system(id, { parent, subtype: 'local_command', content: '<local-command-stdout>ok</local-command-stdout>' });
const meta = (id: string, parent: string) => user(id, { parent, text: '<local-command-caveat>Caveat</local-command-caveat>', extra: { isMeta: true } });

// Measured on the CLI (2.1.330): it sends [.., server_tool_use dropped] [local output] [web_search_tool_result, ..]
// and the API answers 400.
const split = [
  user('u1'),
  assistant('a1', { parent: 'u1', messageId: 'M', text: 'Searching.' }),
  call('s1', 'a1'),
  localOutput('x1', 's1'),
  result('w1', 'x1'),
  assistant('a2', { parent: 'w1', messageId: 'M', text: 'Found it.' }),
  user('u2', { parent: 'a2' }),
];

ruleTester(rule, {
  valid: [
    { name: 'call and result adjacent', records: [user('u1'), call('s1', 'u1'), result('w1', 's1'), assistant('a2', { parent: 'w1', messageId: 'M', text: 'Found.' })] },
    {
      name: 'an attachment between (the CLI merges past it)',
      records: [user('u1'), call('s1', 'u1'), { ...system('x1', { parent: 's1' }), type: 'attachment', attachment: { type: 'hook_additional_context', content: ['c'] } }, result('w1', 'x1')],
    },
    {
      name: 'a meta row hanging from the response, written after the result',
      records: [user('u1'), call('s1', 'u1'), result('w1', 's1'), meta('m1', 's1'), assistant('a2', { parent: 'w1', messageId: 'M', text: 'Found.' })],
    },
  ],
  invalid: [
    {
      name: 'local command output on the chain between call and result',
      records: split,
      errors: [{ messageId: 'split', line: 5, uuid: 'w1', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a meta row hanging from the call, written between call and result',
      records: [user('u1'), call('s1', 'u1'), meta('m1', 's1'), result('w1', 's1'), assistant('a2', { parent: 'w1', messageId: 'M', text: 'Found.' })],
      errors: [{ messageId: 'split', line: 4, uuid: 'w1', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a typed prompt between: the fix would move part of the conversation',
      records: [user('u1'), call('s1', 'u1'), user('u2', { parent: 's1' }), result('w1', 'u2')],
      errors: [{ messageId: 'split', line: 4, uuid: 'w1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'on a branch resume does not send: a warning',
      records: [user('u1'), call('s1', 'u1'), localOutput('x1', 's1'), result('w1', 'x1'), assistant('b1', { parent: 'u1', text: 'Other.' })],
      errors: [{ messageId: 'split', line: 4, uuid: 'w1', severity: 'warning', fix: { applicability: 'safe' } }],
    },
  ],
});

describe('server-tool-split fix', () => {
  it('moves the row before the response: the request is valid, nothing is lost, a second fix changes nothing', async () => {
    const fixed = await fixTwice(split);
    expect(fixed.plan.applied.map((a) => a.ruleId)).toEqual(['server-tool-split']);
    expect(fixed.findings.filter((f) => f.ruleId === 'server-tool-split')).toEqual([]);
    expect(fixed.apiValid).toBe(true);
    expect(fixed.loaded[1]).toBe(fixed.loaded[0]);
    const rows = fixed.plan.after.toString().trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; uuid: string; parentUuid: string | null });
    expect(rows.map((r) => r.type)).toEqual(['user', 'system', 'assistant', 'assistant', 'assistant', 'assistant', 'user']);
    // One chain again: each row hangs from the one above.
    rows.slice(1).forEach((r, i) => expect(r.parentUuid).toBe(rows[i]?.uuid));
  });
});
