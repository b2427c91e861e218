import rule from '../../src/rules/dangling-tool-use.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, compactBoundary, compactSummary, progress, system, toolResult, user } from '../helpers/records.js';

ruleTester(rule, {
  valid: [
    {
      name: 'a tool call answered by its child',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), toolResult('r1', { parent: 'a1', toolUseId: 't1' }), assistant('a2', { parent: 'r1' })],
    },
    {
      // peers.md §3 "mechanical forks"; format.md §6.2 step 6: one API response spread over rows.
      name: 'parallel fan-out: results hang off a sibling row of the same message.id',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'M', toolUse: ['t1'] }),
        assistant('a2', { parent: 'a1', messageId: 'M', toolUse: ['t2'] }),
        toolResult('r1', { parent: 'a2', toolUseId: 't1', sourceToolAssistant: 'a1' }),
        toolResult('r2', { parent: 'r1', toolUseId: 't2', sourceToolAssistant: 'a2' }),
        assistant('a3', { parent: 'r2' }),
      ],
    },
    {
      // format.md §6.2 step 6: the rows of one response count as one. Here
      // the calling row is not above the result, its sibling row is, and
      // the result does not name its caller (no sourceToolAssistantUUID).
      name: 'a result below another row of the same response, naming no caller',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'M', toolUse: ['t1'] }),
        assistant('a2', { parent: 'u1', messageId: 'M', toolUse: ['t2'] }),
        toolResult('r1', { parent: 'a2', toolUseIds: ['t1', 't2'] }),
      ],
    },
    {
      name: 'a lagging result on a side branch of the row that called the tool',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'M', toolUse: ['t1'] }),
        assistant('a2', { parent: 'a1', messageId: 'M', toolUse: ['t2'] }),
        toolResult('r1', { parent: 'a1', toolUseId: 't1' }),
        toolResult('r2', { parent: 'a2', toolUseId: 't2' }),
      ],
    },
    {
      name: 'a result that names the calling row only through sourceToolAssistantUUID',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        system('s1', { parent: 'u1', subtype: 'informational' }),
        toolResult('r1', { parent: 's1', toolUseId: 't1', sourceToolAssistant: 'a1' }),
      ],
    },
    {
      name: 'one row answering several calls',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1', 't2'] }), toolResult('r1', { parent: 'a1', toolUseIds: ['t1', 't2'] })],
    },
    {
      name: 'a result below a progress row',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), progress('p1', { parent: 'a1', toolUseId: 't1' }), toolResult('r1', { parent: 'p1', toolUseId: 't1' })],
    },
    {
      name: 'assistant rows without tool calls, and a compaction in between',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), compactBoundary('cb', { logicalParent: 'a1' }), compactSummary('s1', { parent: 'cb' }), assistant('a2', { parent: 's1' })],
    },
    {
      name: '1.0.x inline sidechain: the Task sidechain answers its own calls',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['task'] }),
        user('sc1', { isSidechain: true, text: 'Task prompt' }),
        assistant('sc2', { parent: 'sc1', isSidechain: true, toolUse: ['t9'] }),
        toolResult('sc3', { parent: 'sc2', isSidechain: true, toolUseId: 't9' }),
        toolResult('r1', { parent: 'a1', toolUseId: 'task' }),
      ],
    },
  ],
  invalid: [
    {
      // peers.md §3 row 5a: an interrupted tool call (#473, #6836). The branch
      // goes on after the call, so a synthetic result would fork it: no fix.
      // The CLI drops the row from the request (measured): a warning.
      name: 'a tool call never answered',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), user('u2', { parent: 'a1' })],
      errors: [{ messageId: 'dangling', line: 2, uuid: 'a1', fix: null }],
    },
    {
      // The CLI answers t2 with a synthetic error result: nothing is lost.
      name: 'one of two calls in a row answered: one finding for the other',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1', 't2'] }), toolResult('r1', { parent: 'a1', toolUseId: 't1' })],
      errors: [{ messageId: 'dangling', line: 2, uuid: 'a1', severity: 'info', fix: null }],
    },
    {
      name: 'the only result sits on another branch',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        user('u2', { parent: 'u1' }),
        toolResult('r1', { parent: 'u2', toolUseId: 't1' }),
      ],
      // Resume follows the other branch and does not send the call at all.
      errors: [{ messageId: 'dangling', line: 2, uuid: 'a1', severity: 'info', fix: { applicability: 'unsafe' } }],
    },
    {
      // The call ends the history: the CLI adds a synthetic result.
      name: 'a result with the same id before the call does not answer it',
      records: [user('u1'), toolResult('r0', { parent: 'u1', toolUseId: 't1' }), assistant('a1', { parent: 'r0', toolUse: ['t1'] })],
      errors: [{ messageId: 'dangling', line: 3, uuid: 'a1', severity: 'info', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'same message.id but a different sidechain flag is not a sibling',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', messageId: 'M', toolUse: ['t1'] }),
        assistant('x1', { parent: 'u1', messageId: 'M', isSidechain: true }),
        toolResult('r1', { parent: 'x1', isSidechain: true, toolUseId: 't1' }),
      ],
      errors: [{ messageId: 'dangling', line: 2, uuid: 'a1', severity: 'info', fix: { applicability: 'unsafe' } }],
    },
  ],
});
