import rule from '../../src/rules/parent-cycle.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, compactBoundary, toolResult, user } from '../helpers/records.js';

ruleTester(rule, {
  valid: [
    { name: 'a linear chain', records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' })] },
    {
      // peers.md §3: genuine rewinds are branches, not corruption.
      name: 'a fork: two children of one record',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), user('u3', { parent: 'a1' })],
    },
    { name: 'children written before their parents', records: [assistant('a1', { parent: 'u1' }), user('u1')] },
    {
      name: 'a phantom parent ends the walk; it is not a cycle',
      records: [user('u1', { parent: 'ghost' }), assistant('a1', { parent: 'u1' })],
    },
    {
      name: "a compact boundary's logicalParentUuid naming a later row is not a parent link",
      records: [user('u1'), compactBoundary('cb', { logicalParent: 'a1' }), assistant('a1', { parent: 'cb' })],
    },
  ],
  invalid: [
    {
      // claude-code-log-fixtures/dag_cycle.jsonl (SOURCES.md) holds a parentUuid cycle.
      name: 'two records naming each other: reported on the link that points forward in the file',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('x1', { parent: 'x2', gapMs: 60_000 }), assistant('x2', { parent: 'x1' })],
      errors: [{ messageId: 'cycle', line: 3, uuid: 'x1', fix: { applicability: 'unsafe' } }],
    },
    {
      // What the CLI does at the repeat: a row written at most 5 s earlier stands in.
      name: 'a cycle resume bridges to a row written a second earlier is a warning',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('x1', { parent: 'x2' }), assistant('x2', { parent: 'x1' })],
      errors: [{ messageId: 'bridged', severity: 'warning', line: 3, uuid: 'x1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a record that is its own parent',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'u2', gapMs: 60_000 })],
      errors: [{ messageId: 'cycle', line: 3, uuid: 'u2', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a longer cycle closed in the middle of the file, with a tail hanging off it',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        user('c1', { parent: 'c3', gapMs: 60_000 }),
        assistant('c2', { parent: 'c1' }),
        user('c3', { parent: 'c2' }),
        assistant('tail', { parent: 'c3' }),
      ],
      errors: [{ messageId: 'cycle', line: 3, uuid: 'c1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a cycle at the start of the file has nothing earlier to relink to',
      records: [user('x1', { parent: 'x2' }), assistant('x2', { parent: 'x1' })],
      errors: [{ messageId: 'bridged', severity: 'warning', line: 1, uuid: 'x1', fix: null }],
    },
    {
      name: 'a tool result that closes a cycle goes back to its tool call, safely',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        toolResult('r1', { parent: 'a2', toolUseId: 't1', gapMs: 60_000 }),
        assistant('a2', { parent: 'r1' }),
      ],
      errors: [{ messageId: 'cycle', line: 3, uuid: 'r1', fix: { applicability: 'safe' } }],
    },
    {
      name: 'two separate cycles',
      records: [user('u1'), user('x1', { parent: 'x2', gapMs: 60_000 }), assistant('x2', { parent: 'x1' }), user('y1', { parent: 'y1', gapMs: 60_000 })],
      errors: [
        { messageId: 'cycle', line: 2, uuid: 'x1', fix: { applicability: 'unsafe' } },
        { messageId: 'cycle', line: 4, uuid: 'y1', fix: { applicability: 'unsafe' } },
      ],
    },
    {
      // The rule's doc: cycles come from reused uuids (saved_hook_context). The fix must not
      // "relink" to the older body of the reused uuid, which is the same link again.
      name: 'a reused uuid whose later body closes the loop',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), assistant('a1', { parent: 'u2' })],
      errors: [{ messageId: 'cycle', line: 3, uuid: 'u2', fix: { applicability: 'unsafe' } }],
    },
  ],
});
