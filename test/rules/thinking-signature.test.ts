import { describe, expect, it, vi } from 'vitest';
import rule from '../../src/rules/thinking-signature.js';
import { indexOf, ruleTester } from '../helpers/rule-tester.js';
import { resumeModel } from '../../src/core/resume.js';
import { fixTwice, thinkingBlock } from '../helpers/fix-twice.js';
import { assistant, user } from '../helpers/records.js';

const think = (id: string, parent: string, block: object, messageId = 'M') => assistant(id, { parent, messageId, content: [block] });

// Measured on the CLI (2.1.330): thinking with an empty or missing
// signature is sent as written ("Invalid `signature` in `thinking` block").
const unsigned = [user('u1'), think('k1', 'u1', thinkingBlock('plan', '')), assistant('a1', { parent: 'k1', messageId: 'M', text: 'Hi.' }), user('u2', { parent: 'a1' })];

ruleTester(rule, {
  valid: [
    { name: 'signed thinking', records: [user('u1'), think('k1', 'u1', thinkingBlock('plan')), assistant('a1', { parent: 'k1', messageId: 'M', text: 'Hi.' })] },
    {
      name: 'one signature on two rows with the same text (a copy)',
      records: [user('u1'), think('k1', 'u1', thinkingBlock('plan')), think('k2', 'u1', thinkingBlock('plan'), 'N'), assistant('a1', { parent: 'k2', messageId: 'N', text: 'Hi.' })],
    },
    { name: 'redacted thinking', records: [user('u1'), think('k1', 'u1', { type: 'redacted_thinking', data: 'abc' }), assistant('a1', { parent: 'k1', messageId: 'M', text: 'Hi.' })] },
  ],
  invalid: [
    {
      name: 'an empty signature on the resumed chain',
      records: unsigned,
      errors: [{ messageId: 'unsigned', line: 2, uuid: 'k1', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'no signature at all',
      records: [user('u1'), think('k1', 'u1', thinkingBlock('plan', null)), assistant('a1', { parent: 'k1', messageId: 'M', text: 'Hi.' })],
      errors: [{ messageId: 'unsigned', line: 2, uuid: 'k1', fix: { applicability: 'unsafe' } }],
    },
    {
      // The first copy (an abandoned branch) keeps the text the API signed; the resumed one was edited.
      name: 'one signature with two texts: the later, edited copy',
      records: [
        user('u1'),
        think('k1', 'u1', thinkingBlock('plan', 'EqSIGNATURE0123456789abcdefghijklmn')),
        think('k2', 'u1', thinkingBlock('plan, edited', 'EqSIGNATURE0123456789abcdefghijklmn'), 'N'),
        assistant('a1', { parent: 'k2', messageId: 'N', text: 'Hi.' }),
      ],
      errors: [{ messageId: 'edited', line: 3, uuid: 'k2', fix: { applicability: 'unsafe' } }],
    },
    {
      name: 'on a branch resume does not send: a warning, and no fix (nothing fails today)',
      records: [user('u1'), think('k1', 'u1', thinkingBlock('plan', '')), assistant('a1', { parent: 'u1', text: 'Other.' })],
      errors: [{ messageId: 'unsigned', line: 2, uuid: 'k1', severity: 'warning', fix: null }],
    },
  ],
});

describe('thinking-signature fix', () => {
  it('drops the response thinking: the request is valid, only the thinking row goes, a second fix changes nothing', async () => {
    const fixed = await fixTwice(unsigned);
    expect(fixed.plan.applied.map((a) => [a.ruleId, a.applicability])).toEqual([['thinking-signature', 'unsafe']]);
    expect(fixed.findings.filter((f) => f.ruleId === 'thinking-signature')).toEqual([]);
    expect(fixed.apiValid).toBe(true);
    expect(fixed.loaded).toEqual([4, 3]);
    expect(fixed.plan.after.toString()).not.toContain('"thinking"');
  });
});

describe('thinking-signature: reading rows back', () => {
  it('reads each row that repeats a signature once, for the rule and the request check together', () => {
    // One response copied on four branches, two copies edited: what a session
    // made of one conversation repeated (the bench's big session) is full of.
    const signature = 'EqSIGNATURE0123456789abcdefghijklmn';
    const records = [
      user('u1'),
      think('k1', 'u1', thinkingBlock('plan', signature)),
      think('k2', 'u1', thinkingBlock('plan, edited', signature), 'N2'),
      think('k3', 'u1', thinkingBlock('plan', signature), 'N3'),
      think('k4', 'u1', thinkingBlock('plan, edited again', signature), 'N4'),
      assistant('a1', { parent: 'k4', messageId: 'N4', text: 'Hi.' }),
    ];
    const index = indexOf({ records });
    const read = vi.spyOn(index, 'recordObject');
    const resume = resumeModel(index);
    const found: Array<[string, number]> = [];
    rule.check({ index, resume, report: (r) => found.push([r.messageId, r.record?.line ?? 0]) } as Parameters<typeof rule.check>[0]);
    expect(found).toEqual([
      ['edited', 3],
      ['edited', 5],
    ]);
    expect(resume.request().violations.map((v) => [v.rule, v.record.line])).toEqual([['thinking-modified-latest', 5]]);
    const lines = read.mock.calls.map(([r]) => r.line).sort((a, b) => a - b);
    expect(lines).toEqual([2, 3, 4, 5]);
  });
});
