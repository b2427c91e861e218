/**
 * invalid-json
 *
 * ## What it detects
 * A line that is not exactly one JSON object: a record torn by a crash (a
 * last line without its end), NUL padding left by delayed allocation after a
 * power loss, two records glued on one line when a newline was lost, valid
 * JSON that is not an object, a line too long to decode, a UTF-8 byte-order
 * mark, or other garbage.
 *
 * ## Why it matters
 * Claude Code skips every line that does not parse and says so only in its
 * debug log. A lost record can take its children's parent
 * with it, and a BOM may cost the first line.
 *
 * ## Fix
 * Safe where nothing can be lost: cut a torn last line (Claude Code skips it
 * anyway, and the backup keeps its bytes), strip NUL runs when what remains
 * parses, split glued records when every piece parses, drop a BOM. Any other
 * bad line is reported and kept: cclint never drops data it cannot read.
 *
 * ## Known false positives
 * None: every reported line is one Claude Code skips.
 */
import type { InvalidLine } from '../core/session-index.js';
import { deleteLinesFix, replaceLineFix } from '../core/fix-builders.js';
import type { Fix } from '../core/types.js';
import type { JsonObject } from '../core/types.js';
import { parseLine } from '../core/parse-line.js';
import type { SessionIndex } from '../core/session-index.js';
import { defineRule } from './rule.js';

function recoveredObjects(index: SessionIndex, bad: InvalidLine): readonly JsonObject[] {
  return parseLine(index.lineText(bad.line), bad.terminated)?.records ?? [];
}

function fixFor(index: SessionIndex, bad: InvalidLine): Fix | undefined {
  switch (bad.reason) {
    case 'torn':
      return deleteLinesFix(index, [bad.line], `Cut the torn last line (${bad.byteLength} bytes; kept in the backup)`, 'safe');
    case 'nul':
      return bad.recoveredRecords > 0
        ? replaceLineFix(index, bad.line, () => recoveredObjects(index, bad), 'Strip the NUL bytes', 'safe')
        : deleteLinesFix(index, [bad.line], 'Delete the line of NUL bytes', 'safe');
    case 'glued':
      return replaceLineFix(
        index,
        bad.line,
        () => recoveredObjects(index, bad),
        `Split the ${bad.recoveredRecords} glued records onto their own lines`,
        'safe',
      );
    case 'bom': {
      // Only a first line that is one clean record can be rewritten without
      // its BOM here; a damaged first line has its own fix, which drops the
      // BOM with the damage, and a blank one can simply go.
      const first = parseLine(index.lineText(1), bad.terminated);
      if (first === undefined) return deleteLinesFix(index, [1], 'Delete the blank first line and its byte-order mark', 'safe');
      if (first.invalid !== undefined) return undefined;
      return replaceLineFix(index, 1, () => first.records, 'Remove the byte-order mark', 'safe');
    }
    default:
      return undefined;
  }
}

export default defineRule({
  meta: {
    id: 'invalid-json',
    description: 'Every line must be exactly one JSON object',
    severity: 'error',
    fixable: 'safe',
    messages: {
      torn: 'the last line is a record cut off mid-write ({bytes} bytes, no line end); Claude Code skips it',
      nul: 'the line holds NUL bytes (padding left by a crash); Claude Code skips it',
      glued: '{count} records are glued on one line (a lost newline); Claude Code skips them all',
      notObject: 'the line is JSON but not an object; Claude Code ignores it',
      garbage: 'the line is not valid JSON ({bytes} bytes); Claude Code skips it',
      tooLong: 'the line is {bytes} bytes, too long to decode; it was not checked',
      bom: 'the file starts with a UTF-8 byte-order mark; some readers lose the first record',
    },
  },
  check({ index, report }) {
    for (const bad of index.invalidLines) {
      const bytes = bad.byteLength;
      const fix = fixFor(index, bad);
      switch (bad.reason) {
        case 'torn':
          report({ messageId: 'torn', data: { bytes }, line: bad.line, fix });
          break;
        case 'nul':
          report({ messageId: 'nul', line: bad.line, fix });
          break;
        case 'glued':
          report({ messageId: 'glued', data: { count: bad.recoveredRecords }, line: bad.line, fix });
          break;
        case 'not-object':
          report({ messageId: 'notObject', line: bad.line });
          break;
        case 'too-long':
          report({ messageId: 'tooLong', data: { bytes }, line: bad.line, severity: 'warning' });
          break;
        case 'bom':
          report({ messageId: 'bom', line: 1, severity: 'warning', fix });
          break;
        default:
          report({ messageId: 'garbage', data: { bytes }, line: bad.line });
      }
    }
  },
});
