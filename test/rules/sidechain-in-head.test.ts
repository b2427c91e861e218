import rule from '../../src/rules/sidechain-in-head.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, summary, toolResult, user } from '../helpers/records.js';

/** A prompt long enough to push everything after it past the first 64 KiB. */
const BIG = 'x'.repeat(70 * 1024);

ruleTester(rule, {
  valid: [
    { name: 'no sidechain rows', records: [user('u1'), assistant('a1', { parent: 'u1' })] },
    {
      name: 'the first sidechain row starts after 64 KiB',
      records: [user('u1', { text: BIG }), assistant('a1', { parent: 'u1', toolUse: ['task'] }), user('sc1', { isSidechain: true, text: 'Task prompt' })],
    },
    {
      name: 'subagent files are sidechains by nature',
      role: 'subagent',
      records: [user('s1', { isSidechain: true }), assistant('s2', { parent: 's1', isSidechain: true })],
    },
    {
      name: 'legacy agent-*.jsonl files beside the sessions',
      role: 'legacy-agent',
      records: [user('s1', { isSidechain: true })],
    },
    { name: 'isSidechain false is written on every main row', records: [summary({ leaf: 'a1' }), user('u1', { isSidechain: false })] },
  ],
  invalid: [
    {
      // 1.0.x inline Task rows: claude-code-viewer/projects/sample-project/fe5e1c67-….jsonl (SOURCES.md).
      name: 'a 1.0.x inline Task sidechain near the top of a main session',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['task'] }),
        user('sc1', { isSidechain: true, text: 'Task prompt' }),
        assistant('sc2', { parent: 'sc1', isSidechain: true }),
        toolResult('r1', { parent: 'a1', toolUseId: 'task' }),
      ],
      errors: [{ messageId: 'hidden', line: 3, uuid: 'sc1' }],
    },
    {
      // peers.md §3 row 9: Warmup agents (`"content":"Warmup"`, isSidechain:true), #17457.
      name: 'a Warmup sidechain as the very first record',
      records: [user('w1', { isSidechain: true, text: 'Warmup' }), assistant('w2', { parent: 'w1', isSidechain: true }), user('u1')],
      errors: [{ messageId: 'hidden', line: 1, uuid: 'w1' }],
    },
    {
      name: 'a sidechain row starting just below 64 KiB',
      records: [user('u1', { text: 'y'.repeat(60 * 1024) }), user('sc1', { isSidechain: true })],
      errors: [{ messageId: 'hidden', line: 2, uuid: 'sc1' }],
    },
  ],
});
