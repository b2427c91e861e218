import rule from '../../src/rules/invalid-timestamp.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, fileHistorySnapshot, lastPrompt, progress, summary, system, user } from '../helpers/records.js';

ruleTester(rule, {
  valid: [
    { name: 'ISO-8601 UTC with milliseconds', records: [user('u1'), assistant('a1', { parent: 'u1' })] },
    {
      name: 'without fraction, and with microseconds',
      records: [user('u1', { timestamp: '2026-01-05T03:00:00Z' }), assistant('a1', { parent: 'u1', timestamp: '2026-01-05T03:00:01.123456Z' })],
    },
    {
      name: 'metadata rows carry no timestamp',
      records: [summary({ leaf: 'a1' }), fileHistorySnapshot('u1'), user('u1'), assistant('a1', { parent: 'u1' }), lastPrompt({ leaf: 'a1' })],
    },
    { name: 'system and progress rows with good timestamps', records: [system('s1', { subtype: 'turn_duration' }), progress('p1', { parent: 's1' })] },
  ],
  invalid: [
    {
      // Hostile input: JSON.stringify throws on a value this deep; the message shows its first 40 characters.
      name: 'a timestamp nested 5,000 levels deep',
      text: `${JSON.stringify(user('u1'))}\n${JSON.stringify(assistant('a1', { parent: 'u1' })).replace(/"timestamp":"[^"]*"/, `"timestamp":${'['.repeat(5000)}0${']'.repeat(5000)}`)}\n`,
      errors: [{ messageId: 'invalid', line: 2, uuid: 'a1' }],
    },
    {
      name: 'a user row without a timestamp',
      records: [user('u1', { omit: ['timestamp'] }), assistant('a1', { parent: 'u1' })],
      errors: [{ messageId: 'missing', line: 1, uuid: 'u1' }],
    },
    {
      name: 'a local-time offset instead of Z',
      records: [user('u1'), assistant('a1', { parent: 'u1', timestamp: '2026-01-05T04:00:01.000+01:00' })],
      errors: [{ messageId: 'invalid', line: 2, uuid: 'a1' }],
    },
    {
      name: 'the right shape but no such date',
      records: [user('u1', { timestamp: '2026-13-45T03:00:00.000Z' })],
      errors: [{ messageId: 'invalid', line: 1, uuid: 'u1' }],
    },
    {
      name: 'a date only, and a space instead of T',
      records: [user('u1', { timestamp: '2026-01-05' }), assistant('a1', { parent: 'u1', timestamp: '2026-01-05 03:00:01.000Z' })],
      errors: [
        { messageId: 'invalid', line: 1, uuid: 'u1' },
        { messageId: 'invalid', line: 2, uuid: 'a1' },
      ],
    },
    {
      name: 'a number (epoch milliseconds) is not a missing timestamp but an invalid one',
      records: [user('u1', { extra: { timestamp: 1767582000000 } }), assistant('a1', { parent: 'u1', extra: { timestamp: null } })],
      errors: [
        { messageId: 'invalid', line: 1, uuid: 'u1' },
        { messageId: 'invalid', line: 2, uuid: 'a1' },
      ],
    },
    {
      name: 'system and progress rows are checked too',
      records: [system('s1', { timestamp: 'yesterday' }), progress('p1', { parent: 's1', omit: ['timestamp'] })],
      errors: [
        { messageId: 'invalid', line: 1, uuid: 's1' },
        { messageId: 'missing', line: 2, uuid: 'p1' },
      ],
    },
  ],
});
