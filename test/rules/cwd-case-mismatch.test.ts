import rule from '../../src/rules/cwd-case-mismatch.js';
import { projectKey } from '../../src/core/project-key.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, summary, user } from '../helpers/records.js';

const LONG = `/home/u/${'VeryLongDirectoryName/'.repeat(10)}proj`;

ruleTester(rule, {
  valid: [
    { name: 'the cwd encodes to the folder exactly', records: [user('u1'), assistant('a1', { parent: 'u1' })] },
    {
      // peers.md §3 (sinzin91/search-sessions#24): later rows record the directory the shell cd'd into.
      name: 'the cwd changes mid-session; only the launch cwd counts',
      records: [user('u1'), assistant('a1', { parent: 'u1', cwd: '/home/u/proj/Sub' }), user('u2', { parent: 'a1', cwd: '/tmp/Other' })],
    },
    {
      name: 'a folder that differs by more than case is project-key-mismatch, not this rule',
      records: [user('u1', { cwd: '/home/u/elsewhere' })],
    },
    {
      name: 'Windows drive letter in the same case as the folder',
      projectFolderName: 'C--Users-x-proj',
      records: [user('u1', { cwd: 'C:\\Users\\x\\proj' })],
    },
    {
      // SOURCES.md notes: ef958aa1…/subagents/agent-*.jsonl run in .claude/worktrees/agent-… below the project.
      name: 'subagent files are not checked (they run in worktrees)',
      role: 'subagent',
      records: [user('s1', { isSidechain: true, cwd: '/home/U/proj' })],
    },
    { name: 'no cwd at all', records: [summary({ leaf: 'x' })] },
    {
      name: 'a sidechain row first does not set the launch cwd',
      records: [user('sc1', { isSidechain: true, cwd: '/home/U/proj' }), user('u1')],
    },
    {
      name: 'a long path hashed into the folder, same casing',
      projectFolderName: projectKey(LONG),
      records: [user('u1', { cwd: LONG })],
    },
  ],
  invalid: [
    {
      // VS Code extension c:\ vs CLI C:\: anthropics/claude-code #90588.
      name: 'drive letter case differs from the folder',
      projectFolderName: 'C--Users-x-proj',
      records: [user('u1', { cwd: 'c:\\Users\\x\\proj' }), assistant('a1', { parent: 'u1', cwd: 'c:\\Users\\x\\proj' })],
      errors: [{ messageId: 'mismatch', line: 1, uuid: 'u1', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a path component in another case (case-folding file systems)',
      records: [user('u1', { cwd: '/home/U/Proj' }), assistant('a1', { parent: 'u1', cwd: '/home/U/Proj' })],
      errors: [{ messageId: 'mismatch', line: 1, uuid: 'u1', fix: { applicability: 'safe' } }],
    },
    {
      name: 'reported once, on the launch record, even when metadata comes first',
      records: [summary({ leaf: 'a1' }), user('u1', { cwd: '/HOME/u/proj' }), assistant('a1', { parent: 'u1', cwd: '/HOME/u/proj' })],
      errors: [{ messageId: 'mismatch', line: 2, uuid: 'u1', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a file not named by a session uuid (role other) is checked too',
      role: 'other',
      records: [user('u1', { cwd: '/home/u/PROJ' })],
      errors: [{ messageId: 'mismatch', line: 1, uuid: 'u1', fix: { applicability: 'safe' } }],
    },
  ],
});
