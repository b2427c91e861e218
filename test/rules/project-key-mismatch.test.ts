import rule from '../../src/rules/project-key-mismatch.js';
import { MAX_PROJECT_KEY_PREFIX, projectKey } from '../../src/core/project-key.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, summary, user } from '../helpers/records.js';

const LONG = `/home/u/${'very-long-directory-name/'.repeat(10)}proj`;
const FULL_LONG_KEY = LONG.replace(/[^A-Za-z0-9]/g, '-');

ruleTester(rule, {
  valid: [
    { name: 'the cwd encodes to the folder', records: [user('u1'), assistant('a1', { parent: 'u1' })] },
    {
      // peers.md §3: cwd changes inside a session are normal; compare the launch cwd only.
      name: 'the cwd changes mid-session',
      records: [user('u1'), assistant('a1', { parent: 'u1', cwd: '/srv/other-repo' }), user('u2', { parent: 'a1', cwd: '/tmp' })],
    },
    { name: 'a case-only difference is cwd-case-mismatch', records: [user('u1', { cwd: '/home/U/proj' })] },
    {
      name: 'a long path hashed into the folder (2.1.x encoding)',
      projectFolderName: projectKey(LONG),
      records: [user('u1', { cwd: LONG })],
    },
    {
      name: 'a long path in a folder that keeps the whole encoding (1.0.x/2.0.x)',
      projectFolderName: FULL_LONG_KEY,
      records: [user('u1', { cwd: LONG })],
    },
    {
      // claude-code-viewer/projects/sample-project/*.jsonl: the folder was renamed to a non-key name (SOURCES.md).
      name: 'a folder whose name is not a project key is not checked',
      projectFolderName: 'sample-project',
      records: [user('u1', { cwd: '/path/to/Demo' })],
    },
    {
      name: 'subagent files are not checked',
      role: 'subagent',
      records: [user('s1', { isSidechain: true, cwd: '/home/u/proj/.claude/worktrees/agent-1' })],
    },
    { name: 'a file without any cwd', records: [summary({ leaf: 'x' })] },
  ],
  invalid: [
    {
      name: 'the folder belongs to another directory (moved or renamed project)',
      records: [user('u1', { cwd: '/home/u/renamed' }), assistant('a1', { parent: 'u1', cwd: '/home/u/renamed' })],
      errors: [{ messageId: 'elsewhere', line: 1, uuid: 'u1' }],
    },
    {
      name: 'the first recorded cwd decides, after metadata lines',
      records: [summary({ leaf: 'a1' }), user('u1', { cwd: '/home/u/proj2' }), assistant('a1', { parent: 'u1', cwd: '/home/u/proj' })],
      errors: [{ messageId: 'elsewhere', line: 2, uuid: 'u1' }],
    },
    {
      name: 'a long path whose folder has neither the hashed nor the full encoding',
      projectFolderName: `${FULL_LONG_KEY.slice(0, MAX_PROJECT_KEY_PREFIX)}-zzzzzz`.replace('-home-u-', '-home-v-'),
      records: [user('u1', { cwd: LONG })],
      errors: [{ messageId: 'elsewhere', line: 1, uuid: 'u1' }],
    },
    {
      // format.md B2 and the rule's own doc: a tool that only replaced "/" leaves "_" and "." in the name.
      name: 'a folder made by a tool that only replaced "/"',
      projectFolderName: '-home-u-my_proj.v2',
      records: [user('u1', { cwd: '/home/u/my_proj.v2' })],
      errors: [{ messageId: 'elsewhere', line: 1, uuid: 'u1' }],
    },
    {
      // SOURCES.md notes: -src-experiments-claude_p was renamed by hand; Claude Code would use -src-experiments-claude-p.
      name: 'a folder renamed by hand to keep an underscore',
      projectFolderName: '-src-experiments-claude_p',
      records: [user('u1', { cwd: '/src/experiments/claude_p' })],
      errors: [{ messageId: 'elsewhere', line: 1, uuid: 'u1' }],
    },
  ],
});
