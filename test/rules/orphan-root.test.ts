import rule from '../../src/rules/orphan-root.js';
import { ruleTester } from '../helpers/rule-tester.js';
import {
  assistant,
  compactBoundary,
  compactSummary,
  lastPrompt,
  progress,
  summary,
  system,
  toolResult,
  user,
  uuidOf,
} from '../helpers/records.js';

ruleTester(rule, {
  valid: [
    {
      name: 'the first prompt is a root',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' })],
    },
    {
      name: 'metadata lines before the first prompt do not make it mid-file',
      records: [summary({ leaf: 'a1' }), lastPrompt({ leaf: 'a1' }), user('u1'), assistant('a1', { parent: 'u1' })],
    },
    {
      // format.md §5; shape of claudeless compact-command capture 8aa54c1d-….jsonl (SOURCES.md).
      name: 'a compact boundary carries logicalParentUuid and a null parent',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        compactBoundary('cb', { logicalParent: 'a1' }),
        compactSummary('s1', { parent: 'cb' }),
        assistant('a2', { parent: 's1' }),
      ],
    },
    {
      name: 'system/local_command and SessionStart progress before the first prompt are roots',
      records: [
        progress('p0'),
        system('lc', { subtype: 'local_command', content: '<command-name>/model</command-name>' }),
        user('u1'),
        assistant('a1', { parent: 'u1' }),
      ],
    },
    {
      // 1.0.x inline Task: claude-code-viewer/projects/sample-project/fe5e1c67-….jsonl lines 16, 38 (SOURCES.md).
      name: '1.0.x inline sidechain Task prompt with a null parent',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['task'] }),
        user('sc1', { isSidechain: true, text: 'Create React components for the app' }),
        assistant('sc2', { parent: 'sc1', isSidechain: true }),
        toolResult('r1', { parent: 'a1', toolUseId: 'task' }),
        assistant('a2', { parent: 'r1' }),
      ],
    },
    {
      // alignment-hive/raw/6f2580aa-….jsonl line 19: a new root right after the interrupt marker.
      name: 'a prompt typed again after [Request interrupted by user for tool use] (array content)',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        toolResult('r1', { parent: 'a1', toolUseId: 't1' }),
        user('i1', { parent: 'r1', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] }),
        user('u2'),
        assistant('a2', { parent: 'u2' }),
      ],
    },
    {
      name: 'a prompt typed again after [Request interrupted by user] (string content)',
      records: [user('u1'), user('i1', { parent: 'u1', text: '[Request interrupted by user]' }), user('u2'), assistant('a2', { parent: 'u2' })],
    },
    {
      name: 'a copied conversation with another session id starts anew',
      records: [
        user('u1', { sessionId: uuidOf('older-session') }),
        assistant('a1', { parent: 'u1', sessionId: uuidOf('older-session') }),
        user('u2'),
        assistant('a2', { parent: 'u2' }),
      ],
    },
    {
      name: 'a subagent file: its first record is a root',
      role: 'subagent',
      records: [user('s1', { isSidechain: true }), assistant('s2', { parent: 's1', isSidechain: true })],
    },
    {
      name: 'an older body of a duplicated uuid with a null parent is not the record Claude Code keeps',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2'), user('u2', { parent: 'a1' })],
    },
    {
      // peers.md §3 row 7: the same row written again (#66454, #5034); Claude Code keeps it at its first position.
      name: 'an identical copy of the first prompt written again later is still the first record',
      records: ((first) => [first, assistant('a1', { parent: 'u1' }), first, assistant('a2', { parent: 'a1' })])(user('u1')),
    },
    {
      name: 'a re-written first prompt with a different body is still the first record',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u1', { text: 'edited prompt' })],
    },
  ],
  invalid: [
    {
      name: 'a mid-file null parent on the resumed chain cuts the history before it',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { gapMs: 60_000 }), assistant('a2', { parent: 'u2' })],
      // A typed prompt a minute later may be the person starting over: only they know.
      errors: [{ messageId: 'cutsHistory', line: 3, uuid: 'u2', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a typed prompt written a second after the answer it follows is surely a continuation',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2'), assistant('a2', { parent: 'u2' })],
      errors: [{ messageId: 'cutsHistory', line: 3, uuid: 'u2', fix: { applicability: 'safe' } }],
    },
    {
      name: 'an assistant row cannot start a conversation: its relink is safe even long after',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), assistant('a2', { parent: null, gapMs: 60_000 })],
      errors: [{ messageId: 'cutsHistory', line: 4, uuid: 'a2', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a tool result goes back to its tool call, safely',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        toolResult('r1', { parent: null, toolUseId: 't1', gapMs: 60_000 }),
        assistant('a2', { parent: 'r1' }),
      ],
      errors: [{ messageId: 'cutsHistory', line: 3, uuid: 'r1', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a mid-file null parent off the resumed chain is an orphan',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        system('e1', { subtype: 'api_error' }),
        user('u2', { parent: 'a1' }),
        assistant('a2', { parent: 'u2' }),
      ],
      errors: [{ messageId: 'orphan', line: 3, uuid: 'e1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'the interrupt marker must be the previous message, not an older one',
      records: [
        user('u1'),
        user('i1', { parent: 'u1', text: '[Request interrupted by user]' }),
        assistant('a1', { parent: 'i1' }),
        user('u2', { gapMs: 60_000 }),
        assistant('a2', { parent: 'u2' }),
      ],
      errors: [{ messageId: 'cutsHistory', line: 4, uuid: 'u2', fix: { applicability: 'unsafe' } }],
    },
    {
      // The boundary is the root of its segment: the row after it may hang from it, never from a row before it.
      name: 'right after a compact boundary a non-boundary null parent relinks to the boundary',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        compactBoundary('cb', { logicalParent: 'a1' }),
        user('u2'),
        assistant('a2', { parent: 'u2' }),
      ],
      errors: [{ messageId: 'orphan', line: 4, uuid: 'u2', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'a sidechain assistant row in a main file is not a Task prompt',
      records: [user('u1'), assistant('a1', { parent: 'u1' }), assistant('sc1', { isSidechain: true }), user('u2', { parent: 'a1' })],
      // The CLI ignores sidechain rows in a main file: nothing to relink them to.
      errors: [{ messageId: 'orphan', line: 3, uuid: 'sc1', fix: null }],
    },
    {
      name: 'two breaks: each is reported on its own line',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1' }),
        user('u2', { gapMs: 60_000 }),
        assistant('a2', { parent: 'u2' }),
        user('u3'),
        assistant('a3', { parent: 'u3' }),
      ],
      errors: [
        { messageId: 'orphan', line: 3, uuid: 'u2', fix: { applicability: 'unsafe' } },
        { messageId: 'cutsHistory', line: 5, uuid: 'u3', fix: { applicability: 'safe' } },
      ],
    },
    {
      name: 'a subagent file: a null parent after its first record',
      role: 'subagent',
      records: [
        user('s1', { isSidechain: true }),
        assistant('s2', { parent: 's1', isSidechain: true }),
        user('s3', { isSidechain: true, gapMs: 60_000 }),
      ],
      errors: [{ messageId: 'orphan', line: 3, uuid: 's3', fix: { applicability: 'unsafe' } }],
    },
  ],
});
