import { describe, expect, it } from 'vitest';
import rule from '../../src/rules/oversized-image.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { fixTwice, imageBlock } from '../helpers/fix-twice.js';
import { assistant, toolUseIdOf, user } from '../helpers/records.js';

const prompt = (id: string, parent: string | null, images: object[]) => user(id, { parent, content: [{ type: 'text', text: 'look' }, ...images] });

// Measured on the CLI (2.1.330): images are sent as stored.
const huge = [user('u1'), assistant('a1', { parent: 'u1' }), prompt('u2', 'a1', [imageBlock(9000, 120)]), assistant('a2', { parent: 'u2' })];

ruleTester(rule, {
  valid: [
    { name: 'an image within the limits', records: [prompt('u1', null, [imageBlock(1920, 1080)]), assistant('a1', { parent: 'u1' })] },
    {
      name: 'twenty images over 2000 px: the many-image limit starts above twenty',
      records: [prompt('u1', null, Array.from({ length: 20 }, () => imageBlock(2100, 100))), assistant('a1', { parent: 'u1' })],
    },
    { name: 'exactly 8000 px', records: [prompt('u1', null, [imageBlock(8000, 8000)]), assistant('a1', { parent: 'u1' })] },
  ],
  invalid: [
    {
      name: 'an image over 8000 px on the resumed chain',
      records: huge,
      errors: [{ messageId: 'oversized', line: 3, uuid: 'u2', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'twenty-one images over 2000 px in one request',
      records: [prompt('u1', null, Array.from({ length: 21 }, () => imageBlock(2100, 100))), assistant('a1', { parent: 'u1' })],
      errors: [{ messageId: 'oversized', line: 1, uuid: 'u1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'an image inside a tool result',
      records: [
        user('u1'),
        assistant('a1', { parent: 'u1', toolUse: ['t1'] }),
        user('r1', { parent: 'a1', content: [{ type: 'tool_result', tool_use_id: toolUseIdOf('t1'), content: [imageBlock(100, 12000)] }] }),
        assistant('a2', { parent: 'r1' }),
      ],
      errors: [{ messageId: 'oversized', line: 3, uuid: 'r1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'on a branch resume does not send: a warning',
      records: [user('u1'), prompt('u2', 'u1', [imageBlock(9000, 120)]), assistant('a2', { parent: 'u1' })],
      errors: [{ messageId: 'oversized', line: 2, uuid: 'u2', severity: 'warning', fix: { applicability: 'unsafe' } }],
    },
  ],
});

describe('oversized-image fix', () => {
  it('replaces the image with a placeholder: the request is valid, no message lost, a second fix changes nothing', async () => {
    const fixed = await fixTwice(huge);
    expect(fixed.plan.applied.map((a) => [a.ruleId, a.applicability])).toEqual([['oversized-image', 'unsafe']]);
    expect(fixed.findings.filter((f) => f.ruleId === 'oversized-image')).toEqual([]);
    expect(fixed.apiValid).toBe(true);
    expect(fixed.loaded).toEqual([4, 4]);
    const content = (JSON.parse(fixed.plan.after.toString().split('\n')[2] as string) as { message: { content: unknown[] } }).message.content;
    expect(content).toEqual([
      { type: 'text', text: 'look' },
      { type: 'text', text: "[image removed by cclint: png 9000x120 px, 0 KB, over the API's limits; the original is in cclint's backup]" },
    ]);
  });
});
