import rule from '../../src/rules/duplicate-uuid.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, fileHistorySnapshot, jsonl, lastPrompt, summary, user } from '../helpers/records.js';

const u1 = user('u1');
const a1 = assistant('a1', { parent: 'u1' });
const u2 = user('u2', { parent: 'a1' });
/** `record` as a line with one more field nested `levels` deep (too deep for JSON.stringify to write back). */
const withDeepField = (record: object, levels: number, leaf = '0'): string =>
  JSON.stringify(record).replace(/}$/, `,"deep":${'{"x":'.repeat(levels)}${leaf}${'}'.repeat(levels)}}`);

ruleTester(rule, {
  valid: [
    {
      name: 'every uuid once',
      records: [user('v1'), assistant('v2', { parent: 'v1' }), user('v3', { parent: 'v2' })],
    },
    {
      name: 'streaming rows share message.id, not uuid',
      records: [
        user('s1'),
        assistant('s2', { parent: 's1', messageId: 'M', text: 'thinking aloud' }),
        assistant('s3', { parent: 's2', messageId: 'M', toolUse: ['t1'] }),
      ],
    },
    {
      // format.md §4.1: the snapshot's messageId equals the user row's uuid by design.
      name: 'a file-history-snapshot keyed by a user uuid is not a duplicate',
      records: [fileHistorySnapshot('f1'), user('f1'), assistant('f2', { parent: 'f1' })],
    },
    {
      name: 'metadata rows without uuid repeat freely',
      records: [summary({ leaf: 'm2' }), summary({ leaf: 'm2' }), user('m1'), assistant('m2', { parent: 'm1' }), lastPrompt({ leaf: 'm2' }), lastPrompt({ leaf: 'm2' })],
    },
    {
      // peers.md §3: a resumed session copies its prefix into the new file.
      name: 'the same uuids in another file of the session group are normal',
      records: [u1, a1, u2],
      others: [{ path: '/home/u/.claude/projects/-home-u-proj/0b5c2f3e-8d7a-4c1b-9e6f-2a3b4c5d6e7f.jsonl', records: [u1, a1] }],
    },
  ],
  invalid: [
    {
      // Hostile input: bodies nested 5,000 levels deep are compared without JSON.stringify.
      name: 'copies of a record nested 5,000 levels deep: identical, then different',
      text: [JSON.stringify(u1), withDeepField(a1, 5000), withDeepField(a1, 5000), withDeepField(a1, 5000, '1'), ''].join('\n'),
      errors: [
        { messageId: 'identical', line: 3, uuid: 'a1', severity: 'warning', fix: { applicability: 'safe' } },
        { messageId: 'different', line: 4, uuid: 'a1', severity: 'error', fix: { applicability: 'unsafe' } },
      ],
    },
    {
      name: 'an identical copy: warning, safe delete',
      records: [u1, a1, a1, u2],
      errors: [{ messageId: 'identical', line: 3, uuid: 'a1', severity: 'warning', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a re-written body of the same record: error, unsafe fix',
      records: [u1, a1, assistant('a1', { parent: 'u1', text: 'a different reply' }), u2],
      errors: [{ messageId: 'different', line: 3, uuid: 'a1', severity: 'error', fix: { applicability: 'unsafe' } }],
    },
    {
      // peers.md §3 row 7: the same row written several times (#66454, #5034).
      name: 'three copies, the last one different: each later copy is compared with the first',
      records: [u1, a1, a1, u2, assistant('a1', { parent: 'u1', text: 'edited' })],
      errors: [
        { messageId: 'identical', line: 3, uuid: 'a1', severity: 'warning', fix: { applicability: 'safe' } },
        { messageId: 'different', line: 5, uuid: 'a1', fix: { applicability: 'unsafe' } },
      ],
    },
    {
      name: 'a different record reusing the uuid (another type and parent): error, unsafe fix',
      records: [u1, a1, u2, user('a1', { parent: 'u2' })],
      errors: [{ messageId: 'different', line: 4, uuid: 'a1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'the same uuid with only a different timestamp is a different body',
      records: [u1, a1, { ...a1, timestamp: '2026-01-05T04:00:00.000Z' }],
      errors: [{ messageId: 'different', line: 3, uuid: 'a1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'an identical copy glued onto another record: no line delete is safe',
      text: `${JSON.stringify(u1)}\n${JSON.stringify(a1)}${JSON.stringify(a1)}\n${JSON.stringify(u2)}\n`,
      errors: [{ messageId: 'identical', line: 2, uuid: 'a1', severity: 'warning', fix: null }],
    },
    {
      name: 'two duplicated uuids are reported in line order',
      text: jsonl([u1, a1, u1, a1]),
      errors: [
        { messageId: 'identical', line: 3, uuid: 'u1', severity: 'warning', fix: { applicability: 'safe' } },
        { messageId: 'identical', line: 4, uuid: 'a1', severity: 'warning', fix: { applicability: 'safe' } },
      ],
    },
  ],
});
