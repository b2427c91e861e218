import rule from '../../src/rules/invalid-json.js';
import { ruleTester } from '../helpers/rule-tester.js';
import { assistant, jsonl, user } from '../helpers/records.js';

const u1 = JSON.stringify(user('u1'));
const a1 = JSON.stringify(assistant('a1', { parent: 'u1' }));
const u2 = JSON.stringify(user('u2', { parent: 'a1' }));
const BOM = '\uFEFF';

ruleTester(rule, {
  valid: [
    { name: 'compact JSON lines with a final newline', records: [user('u1'), assistant('a1', { parent: 'u1' })] },
    { name: 'an empty file', text: '' },
    { name: 'CRLF line endings (Claude Code trims them)', text: `${u1}\r\n${a1}\r\n` },
    { name: 'blank lines are skipped by Claude Code too', text: `${u1}\n\n${a1}\n   \n` },
    { name: 'a complete last record without a final newline', text: `${u1}\n${a1}` },
    { name: 'pretty-printed keys on one line still parse', text: `${JSON.stringify(JSON.parse(u1), null, 1).replace(/\n/g, ' ')}\n` },
    { name: 'unknown record types are valid JSON objects', text: jsonl([{ type: 'brand-new-type', sessionId: 'x' }]) },
  ],
  invalid: [
    {
      // peers.md §3 row 6: a kill or power loss mid-append (#1779, cozempic#147).
      name: 'a torn last line without its end',
      text: `${u1}\n${a1}\n${u2.slice(0, 40)}`,
      errors: [{ messageId: 'torn', line: 3, fix: { applicability: 'safe' } }],
    },
    {
      name: 'a line of NUL padding (ext4 delayed allocation after a crash)',
      text: `${u1}\n${'\u0000'.repeat(64)}\n${a1}\n`,
      errors: [{ messageId: 'nul', line: 2, fix: { applicability: 'safe' } }],
    },
    {
      name: 'NUL bytes before a record: strip them',
      text: `${u1}\n${'\u0000'.repeat(8)}${a1}\n`,
      errors: [{ messageId: 'nul', line: 2, fix: { applicability: 'safe' } }],
    },
    {
      name: 'two records glued by a lost newline',
      text: `${u1}\n${a1}${u2}\n`,
      errors: [{ messageId: 'glued', line: 2, fix: { applicability: 'safe' } }],
    },
    {
      name: 'JSON that is not an object: kept, no fix',
      text: `${u1}\n[1,2,3]\n"text"\n${a1}\n`,
      errors: [
        { messageId: 'notObject', line: 2, fix: null },
        { messageId: 'notObject', line: 3, fix: null },
      ],
    },
    {
      name: 'garbage in mid-file: kept, no fix',
      text: `${u1}\n${a1.slice(0, 50)}\n${u2}\n`,
      errors: [{ messageId: 'garbage', line: 2, fix: null }],
    },
    {
      name: 'a UTF-8 byte-order mark: warning, safe fix',
      text: `${BOM}${u1}\n${a1}\n`,
      errors: [{ messageId: 'bom', line: 1, severity: 'warning', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a byte-order mark before a line that is itself garbage',
      text: `${BOM}not json at all\n${a1}\n`,
      errors: [
        { messageId: 'bom', line: 1, severity: 'warning', fix: null },
        { messageId: 'garbage', line: 1, fix: null },
      ],
    },
    {
      name: 'a byte-order mark on an otherwise blank first line',
      text: `${BOM}\n${u1}\n`,
      errors: [{ messageId: 'bom', line: 1, severity: 'warning', fix: { applicability: 'safe' } }],
    },
    {
      name: 'a torn last line after CRLF lines',
      text: `${u1}\r\n${a1.slice(0, 30)}`,
      errors: [{ messageId: 'torn', line: 2, fix: { applicability: 'safe' } }],
    },
  ],
});
