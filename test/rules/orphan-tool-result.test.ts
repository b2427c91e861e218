import rule from '../../src/rules/orphan-tool-result.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, compactBoundary, compactSummary, progress, system, toolResult, user } from '../helpers/records.js';

ruleTester(rule, {
  valid: [
    {
      name: 'a result right below its call',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), toolResult('r1', { parent: 'a1', toolUseId: 't1' })],
    },
    {
      // peers.md §3 "parallel tool_results"; format.md §6.2 step 6.
      name: 'parallel fan-out: a result parented to a sibling row of the same message.id',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'M', text: 'Running both.' }),
        assistant('a2', { parent: 'a1', messageId: 'M', toolUse: ['t1'] }),
        assistant('a3', { parent: 'a2', messageId: 'M', toolUse: ['t2'] }),
        toolResult('r1', { parent: 'a3', toolUseId: 't1' }),
        toolResult('r2', { parent: 'r1', toolUseId: 't2' }),
        assistant('a4', { parent: 'r2' }),
      ],
    },
    {
      name: 'walking up past attachment/system/progress rows to the assistant turn',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        progress('p1', { parent: 'a1', toolUseId: 't1' }),
        system('s1', { parent: 'p1', subtype: 'informational' }),
        toolResult('r1', { parent: 's1', toolUseId: 't1' }),
      ],
    },
    {
      name: 'the call named through sourceToolAssistantUUID',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        assistant('a2', { parent: 'a1' }),
        toolResult('r1', { parent: 'a2', toolUseId: 't1', sourceToolAssistant: 'a1' }),
      ],
    },
    {
      name: 'a meta user row between the call and its result',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        user('m1', { parent: 'a1', extra: { isMeta: true }, content: [{ type: 'text', text: 'Caveat: …' }] }),
        toolResult('r1', { parent: 'm1', toolUseId: 't1' }),
      ],
    },
    {
      name: 'a result whose parent is missing: left to phantom-parent',
      records: [user('u1'), toolResult('r1', { parent: 'ghost', toolUseId: 't1' })],
    },
  ],
  invalid: [
    {
      name: 'a result for a call the previous turn did not make',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), toolResult('r1', { parent: 'a1', toolUseId: 't2' })],
      errors: [{ messageId: 'orphan', line: 3, uuid: 'r1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a result for a call of an earlier turn',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        toolResult('r1', { parent: 'a1', toolUseId: 't1' }),
        assistant('a2', { parent: 'r1', toolUse: ['t2'] }),
        toolResult('r2', { parent: 'a2', toolUseIds: ['t2', 't1'] }),
      ],
      errors: [{ messageId: 'orphan', line: 5, uuid: 'r2', fix: { applicability: 'unsafe' } }],
    },
    {
      // peers.md §3 row 5b: compaction summarised the tool_use away (#8484).
      name: 'right after a compaction summary: no assistant turn before it',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        compactBoundary('cb', { logicalParent: 'a1' }),
        compactSummary('s1', { parent: 'cb' }),
        toolResult('r1', { parent: 's1', toolUseId: 't1' }),
      ],
      errors: [{ messageId: 'noTurn', line: 5, uuid: 'r1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a result that starts the file',
      records: [toolResult('r1', { toolUseId: 't1' }), assistant('a1', { parent: 'r1' })],
      errors: [{ messageId: 'noTurn', line: 1, uuid: 'r1', fix: { applicability: 'unsafe' } }],
    },
    {
      // Resume follows the other branch: the request carries nothing of it.
      name: 'on a branch resume does not send: info',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), toolResult('r1', { parent: 'a1', toolUseId: 't2' }), assistant('b1', { parent: 'u1' })],
      errors: [{ messageId: 'orphan', line: 3, uuid: 'r1', severity: 'info', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a result parented to a typed prompt',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), user('u2', { parent: 'a1' }), toolResult('r1', { parent: 'u2', toolUseId: 't1' })],
      errors: [{ messageId: 'noTurn', line: 4, uuid: 'r1', fix: { applicability: 'unsafe' } }],
    },
  ],
});
