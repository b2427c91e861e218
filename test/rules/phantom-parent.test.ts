import rule from '../../src/rules/phantom-parent.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, compactBoundary, compactSummary, iso, progress, T0, toolResult, user } from '../helpers/records.js';

ruleTester(rule, {
  valid: [
    {
      name: 'every parent is in the file',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' })],
    },
    {
      name: 'children written before their parents',
      records: [user('u1'), user('u2', { parent: 'a1' }), assistant('a1', { parent: 'u1' })],
    },
    {
      name: 'a progress row written before its child',
      records: [user('u1'), assistant('a1', { parent: 'u1', toolUse: ['t1'] }), progress('p1', { parent: 'a1', toolUseId: 't1' }), toolResult('r1', { parent: 'p1', toolUseId: 't1' })],
    },
    {
      name: "a compact boundary's logicalParentUuid is not a parent link (and may name a row no longer in the file)",
      records: [compactBoundary('cb', { logicalParent: 'pre-compaction' }), compactSummary('s1', { parent: 'cb' }), assistant('a1', { parent: 's1' })],
    },
    {
      // 2.1.29 prompt_suggestion agents: claudeless compact-command …/8aa54c1d-…/subagents/agent-aprompt_suggestion-e6d768.jsonl (SOURCES.md notes).
      name: "a subagent file whose first record's parent lives in the main session",
      role: 'subagent',
      records: [user('s1', { parent: 'm2', isSidechain: true }), assistant('s2', { parent: 's1', isSidechain: true })],
      others: [{ role: 'main', records: [user('m1'), assistant('m2', { parent: 'm1' })] }],
    },
    {
      name: 'a continued session whose first prompt names a record of another session file of the group',
      records: [user('u2', { parent: 'old-a1' }), assistant('a2', { parent: 'u2' })],
      others: [{ path: '/home/u/.claude/projects/-home-u-proj/0b5c2f3e-8d7a-4c1b-9e6f-2a3b4c5d6e7f.jsonl', records: [user('old-u1'), assistant('old-a1', { parent: 'old-u1' })] }],
    },
    {
      name: 'a parent that is a row of a sibling subagent file',
      role: 'subagent',
      records: [user('s1', { parent: 'x2', isSidechain: true })],
      others: [
        { role: 'main', records: [user('m1')] },
        { role: 'subagent', records: [user('x1', { isSidechain: true }), assistant('x2', { parent: 'x1', isSidechain: true })] },
      ],
    },
  ],
  invalid: [
    {
      // claudeless compact-command (SOURCES.md): the /compact command rows carry times older than the boundary.
      name: 'a gap resume bridges back across a compaction: it brings the compacted history back',
      records: [
        user('u1', { timestamp: iso(T0) }),
        assistant('a1', { parent: 'u1', timestamp: iso(T0 + 10_000) }),
        compactBoundary('cb', { logicalParent: 'a1', timestamp: iso(T0 + 20_000) }),
        compactSummary('s1', { parent: 'cb', timestamp: iso(T0 + 20_000) }),
        user('u2', { parent: 'gone', timestamp: iso(T0 + 12_000) }),
        assistant('a2', { parent: 'u2', timestamp: iso(T0 + 21_000) }),
      ],
      errors: [{ messageId: 'bridgedAcross', line: 5, uuid: 'u2', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a gap resume bridges into an attempt abandoned at a rewind: it sends that attempt',
      records: [
        user('u1', { timestamp: iso(T0) }),
        assistant('a1', { parent: 'u1', timestamp: iso(T0 + 1_000) }),
        user('x1', { parent: 'a1', text: 'first try', timestamp: iso(T0 + 2_000) }),
        user('k1', { parent: 'a1', text: 'second try', timestamp: iso(T0 + 3_000) }),
        assistant('x2', { parent: 'x1', timestamp: iso(T0 + 4_000) }),
        assistant('k2', { parent: 'gone', timestamp: iso(T0 + 5_000) }),
      ],
      // The fix goes to the kept prompt, never into the abandoned attempt.
      errors: [{ messageId: 'bridgedAbandoned', line: 6, uuid: 'k2', fix: { applicability: 'safe' } }],
    },
    {
      // The usual "resume only shows the last messages" shape: anthropics/claude-code #22526, #58554.
      name: 'no row at most 5 s older: resume stops at the gap',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'ghost', gapMs: 60_000 }), assistant('a2', { parent: 'u2' })],
      errors: [{ messageId: 'cutsHistory', line: 3, uuid: 'u2', fix: { applicability: 'safe' } }],
    },
    {
      name: 'CRLF line endings: same finding, and the fix edits the line without its CR',
      text: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'ghost', gapMs: 60_000 }), assistant('a2', { parent: 'u2' })]
        .map((r) => JSON.stringify(r))
        .join('\r\n')
        .concat('\r\n'),
      errors: [{ messageId: 'cutsHistory', line: 3, uuid: 'u2', fix: { applicability: 'safe' } }],
    },
    {
      // What the real CLI does with a parentUuid that is neither a string nor null (2.1.330, through
      // the CLI oracle): a truthy one is a parent it cannot find (bridged within 5 s, else a cut), a
      // falsy one ends the walk as "" does. Before, both read as a root: no finding, history lost unseen.
      name: 'a parentUuid that is an object: a parent that is not there, and resume stops at it',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { extra: { parentUuid: {} }, gapMs: 60_000 }), assistant('a2', { parent: 'u2' })],
      errors: [{ messageId: 'cutsHistory', line: 3, uuid: 'u2', message: /^parentUuid ‹\{…\}› is not in this session; resume stops here and drops 2 earlier message\(s\)$/, fix: { applicability: 'safe' } }],
    },
    {
      name: 'a parentUuid that is a number, a row 1 s older: resume bridges it, as for a uuid it cannot find',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { extra: { parentUuid: 5 } }), assistant('a2', { parent: 'u2' })],
      errors: [{ messageId: 'bridged', line: 3, uuid: 'u2', severity: 'warning', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a parentUuid that is false ends the walk as "" does, even with a row 1 s older',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { extra: { parentUuid: false } }), assistant('a2', { parent: 'u2' })],
      errors: [{ messageId: 'missing', line: 3, uuid: 'u2', message: /^parentUuid "" is not in this session/, fix: { applicability: 'safe' } }],
    },
    {
      name: 'a row 1 s older bridges the gap: warning',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'ghost' }), assistant('a2', { parent: 'u2' })],
      errors: [{ messageId: 'bridged', line: 3, uuid: 'u2', severity: 'warning', fix: { applicability: 'safe' } }],
    },
    {
      name: 'exactly 5,000 ms is still bridged',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'ghost', gapMs: 5_000 }), assistant('a2', { parent: 'u2' })],
      errors: [{ messageId: 'bridged', line: 3, uuid: 'u2', severity: 'warning', fix: { applicability: 'safe' } }],
    },
    {
      name: '5,001 ms is not bridged',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'ghost', gapMs: 5_001 }), assistant('a2', { parent: 'u2' })],
      errors: [{ messageId: 'cutsHistory', line: 3, uuid: 'u2', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a gap off the resumed branch is missing, and the relink would fork: unsafe',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        user('x1', { parent: 'ghost', gapMs: 60_000 }),
        user('u2', { parent: 'a1', gapMs: 60_000 }),
        assistant('a2', { parent: 'u2' }),
      ],
      errors: [{ messageId: 'missing', line: 3, uuid: 'x1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a sidechain row of a main file with a missing parent: warning',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), assistant('sc1', { parent: 'ghost', isSidechain: true, gapMs: 60_000 })],
      errors: [{ messageId: 'sidechain', line: 3, uuid: 'sc1', severity: 'warning', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a subagent file whose main session is absent: info, no fix',
      role: 'subagent',
      records: [user('s1', { parent: 'm2', isSidechain: true }), assistant('s2', { parent: 's1', isSidechain: true })],
      errors: [{ messageId: 'mainMissing', line: 1, uuid: 's1', severity: 'info', fix: null }],
    },
    {
      name: 'a subagent parent found neither in the main session nor in other subagents',
      role: 'subagent',
      records: [user('s1', { parent: 'ghost', isSidechain: true, gapMs: 60_000 }), assistant('s2', { parent: 's1', isSidechain: true })],
      others: [{ role: 'main', records: [user('m1', { gapMs: -120_000 })] }],
      errors: [{ messageId: 'missing', line: 1, uuid: 's1', fix: null }],
    },
    {
      name: 'the first record names a parent nowhere to be found: nothing earlier to relink to',
      records: [user('u1', { parent: 'ghost' }), assistant('a1', { parent: 'u1' })],
      errors: [{ messageId: 'missing', line: 1, uuid: 'u1', fix: null }],
    },
    {
      // The first row after a boundary hangs from it, never from a row before it.
      name: 'a relink never crosses a compact boundary: the first row after it goes to the boundary',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        compactBoundary('cb', { logicalParent: 'a1' }),
        user('u2', { parent: 'ghost', gapMs: 60_000 }),
        assistant('a2', { parent: 'u2' }),
      ],
      errors: [{ messageId: 'missing', line: 4, uuid: 'u2', fix: { applicability: 'safe' } }],
    },
  ],
});
