import rule from '../../src/rules/unknown-record-type.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, fileHistorySnapshot, jsonl, lastPrompt, progress, summary, system, user } from '../helpers/records.js';

const SID = 'cc32e44d-50bb-4405-932c-c03c340698b3';

ruleTester(rule, {
  valid: [
    {
      name: 'conversation rows and the common metadata',
      records: [summary({ leaf: 'a1' }), fileHistorySnapshot('u1'), user('u1'), assistant('a1', { parent: 'u1' }), system('s1', { parent: 'a1', subtype: 'turn_duration' }), progress('p1', { parent: 'a1' }), lastPrompt({ leaf: 'a1' })],
    },
    {
      // peers.md §3 row 10: inert types added every few releases.
      name: 'inert 2.1.x types',
      records: [
        { type: 'queue-operation', operation: 'enqueue', timestamp: '2026-01-05T03:00:00.000Z', sessionId: SID },
        { type: 'custom-title', customTitle: 'T', sessionId: SID },
        { type: 'ai-title', aiTitle: 'T', sessionId: SID },
        { type: 'mode', mode: 'normal', sessionId: SID },
        { type: 'permission-mode', permissionMode: 'default', sessionId: SID },
        { type: 'pr-link', prUrl: 'https://example.invalid/pr/1', sessionId: SID },
        { type: 'worktree-state', sessionId: SID },
        { type: 'file-history-delta', messageId: SID },
        { type: 'attachment', parentUuid: null, uuid: SID, timestamp: '2026-01-05T03:00:01.000Z', attachment: { type: 'hook_success' } },
      ],
    },
    { name: 'artifact-* bookkeeping types', records: [{ type: 'artifact-index', sessionId: SID }, { type: 'artifact-blob', sessionId: SID }] },
    { name: 'an empty file', text: '' },
  ],
  invalid: [
    {
      name: 'an unknown type, counted once per type on its first line',
      records: [user('u1'), { type: 'brand-new-type', sessionId: SID }, assistant('a1', { parent: 'u1' }), { type: 'brand-new-type', sessionId: SID }],
      errors: [{ messageId: 'unknown', line: 2, severity: 'info' }],
    },
    {
      // ccusage/projects/project-alpha/session-alpha/chat.jsonl: usage-only records without type (SOURCES.md).
      name: 'records without a type field',
      text: jsonl([
        { timestamp: '2026-01-05T03:00:00.000Z', message: { usage: { input_tokens: 1, output_tokens: 2 } }, costUSD: 0.01 },
        { timestamp: '2026-01-05T03:00:01.000Z', message: { usage: { input_tokens: 3, output_tokens: 4 } }, costUSD: 0.02 },
      ]),
      errors: [{ messageId: 'untyped', line: 1, severity: 'info' }],
    },
    {
      // alignment-hive/extracted/*.jsonl: a first line `{"_type":"hive-mind-meta",…}` added by an extractor.
      name: 'an extractor header without type, then two different unknown types',
      records: [{ _type: 'hive-mind-meta', version: '0.1', sessionId: SID }, user('u1'), { type: 'x-one' }, { type: 42 }, { type: 'x-two' }],
      errors: [
        { messageId: 'untyped', line: 1, severity: 'info' },
        { messageId: 'unknown', line: 3, severity: 'info' },
        { messageId: 'unknown', line: 5, severity: 'info' },
      ],
    },
  ],
});
