import { describe, expect, it } from 'vitest';
import { describeNotTranscript, notTranscript } from '../../src/core/transcript.js';
import { resultOf } from '../../src/engine/linter.js';
import rule from '../../src/rules/not-a-transcript.js';
import { RULES } from '../../src/rules/index.js';
import { indexOf, lintCase, ruleTester } from '../helpers/rule-tester.js';
import { assistant, jsonl, summary, user } from '../helpers/records.js';

const SID = 'cc32e44d-50bb-4405-932c-c03c340698b3';
const u1 = JSON.stringify(user('u1'));
const NUL = '\u0000';
/** The first bytes of a PNG file: a CRLF, a SUB, NULs and bytes that are not UTF-8. */
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x0a]);

ruleTester(rule, {
  valid: [
    { name: 'a conversation', records: [user('u1'), assistant('a1', { parent: 'u1' })] },
    { name: 'an empty file (Claude Code leaves them behind)', text: '' },
    { name: 'blank lines only', text: '\n  \n\r\n' },
    { name: 'a byte-order mark and nothing else', text: '\uFEFF\n' },
    { name: 'metadata rows only: a title and a summary', records: [summary({ summary: 'x' }), { type: 'custom-title', customTitle: 'T', sessionId: SID }] },
    { name: 'a record type newer than cclint, with a uuid', records: [{ type: 'brand-new-type', uuid: SID }] },
    { name: 'a record type newer than cclint, with a sessionId', records: [{ type: 'brand-new-type', sessionId: SID }] },
    { name: 'one record among garbage lines', text: `not json\n${u1}\n\u00ff\u0000\n` },
    { name: 'a record recovered from NUL padding', text: `${NUL.repeat(16)}${u1}\n` },
    { name: 'a record recovered from a glued pair', text: `{"a":1}${u1}\n` },
  ],
  invalid: [
    { name: 'binary data', text: PNG, errors: [{ messageId: 'binary', line: 1 }] },
    { name: 'bytes that are not UTF-8, without a NUL', text: Buffer.from([0x7b, 0xc3, 0x28, 0x0a, 0xff, 0x0a]), errors: [{ messageId: 'binary', line: 1 }] },
    { name: 'NUL padding and nothing else', text: `${NUL.repeat(100)}\n${NUL.repeat(3)}`, errors: [{ messageId: 'nulOnly', line: 1 }] },
    { name: 'plain text, like /etc/passwd', text: 'root:x:0:0:root:/root:/bin/bash\nuser:x:1000:1000::/home/user:/bin/sh\n', errors: [{ messageId: 'text', line: 1 }] },
    { name: 'JSON values that are not objects', text: '[1,2]\n"text"\n42\n', errors: [{ messageId: 'text', line: 1 }] },
    { name: 'a torn line and nothing else', text: '{"type":"user","message":', errors: [{ messageId: 'text', line: 1 }] },
    {
      name: 'usage-only rows of another tool (no type)',
      records: [{ timestamp: '2026-01-01T00:00:00.000Z', sessionId: 'alpha', usage: { input_tokens: 1 } }],
      errors: [{ messageId: 'foreignJson', line: 1 }],
    },
    { name: 'typed rows without uuid or sessionId, of no type Claude Code knows', records: [{ type: 'click', x: 1 }, { type: 'view' }], errors: [{ messageId: 'foreignJson', line: 1 }] },
  ],
});

describe('not-a-transcript in the engine', () => {
  it('drops every other rule on a file that is not a transcript: no line-by-line "fixes"', () => {
    const { findings } = lintCase(RULES, { text: PNG });
    expect(findings.map((f) => [f.ruleId, f.messageId, f.line, f.severity, f.fix])).toEqual([['not-a-transcript', 'binary', 1, 'error', undefined]]);
    expect(findings[0]?.message).toBe('not a Claude Code transcript: 17 bytes of binary data, no JSON record');
  });

  it('leaves the other rules to a transcript, and runs them when the rule is off', () => {
    const damaged = `${u1}\ngarbage\n`;
    expect(lintCase(RULES, { text: damaged }).findings.map((f) => f.ruleId)).toContain('invalid-json');
    const index = indexOf({ text: PNG });
    const off = lintCase(RULES.filter((r) => r.meta.id !== 'not-a-transcript'), { text: PNG }).findings;
    expect(off.map((f) => [f.ruleId, f.line])).toEqual([['invalid-json', 1], ['invalid-json', 2], ['invalid-json', 3]]);
    expect(notTranscript(index)).toEqual({ kind: 'binary', bytes: PNG.length });
  });

  it('gives a file that is not a transcript no resume figures, score or forks, and a transcript all three', () => {
    const foreign = resultOf(indexOf({ text: 'root:x:0:0\n' }), []);
    expect(foreign.notTranscript).toBe(true);
    expect(foreign.resume).toBeUndefined();
    expect(foreign.score).toBeUndefined();
    expect(foreign.forks).toBeUndefined();
    const empty = resultOf(indexOf({ text: '' }), []);
    expect(empty.notTranscript).toBeUndefined();
    expect(empty.resume).toEqual({ loaded: 0, total: 0, fidelity: 1, sdk: 0, apiValid: true, apiViolations: [] });
    const healthy = resultOf(indexOf({ text: jsonl([user('u1'), assistant('a1', { parent: 'u1' })]) }), []);
    expect(healthy.resume).toEqual({ loaded: 2, total: 2, fidelity: 1, sdk: 2, apiValid: true, apiViolations: [] });
  });

  it('words a verdict the same way for the commands that refuse the file', () => {
    expect(describeNotTranscript({ kind: 'text', lines: 1234 })).toBe('not a Claude Code transcript: 1,234 line(s) of text, none of them a JSON object');
    expect(describeNotTranscript({ kind: 'nul-only', bytes: 4096 })).toContain('4,096 bytes of NUL padding and nothing else');
    const { findings } = lintCase(RULES, { text: 'a\nb\n' });
    expect(findings[0]?.message).toBe(describeNotTranscript({ kind: 'text', lines: 2 }));
  });
});
