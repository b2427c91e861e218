/**
 * unknown-record-type
 *
 * ## What it detects
 * Record types this version of cclint does not know, once per type and file
 * (with the number of records), and records with no `type` at all.
 *
 * ## Why it matters
 * Nothing breaks: Claude Code ignores types it does not know. The report
 * is information for people writing tools: Claude Code adds a new inert
 * type every few releases, and a record without a type
 * is usually the output of another tool.
 *
 * ## Fix
 * None. Unknown records are kept byte for byte by every cclint fix.
 *
 * ## Known false positives
 * A type newer than this cclint.
 */
import { isKnownRecordType } from '../core/records.js';
import type { RecordSummary } from '../core/records.js';
import { defineRule } from './rule.js';

export default defineRule({
  meta: {
    id: 'unknown-record-type',
    description: 'Report record types cclint does not know (information only)',
    severity: 'info',
    messages: {
      unknown: 'record type "{type}" is not known to cclint ({count} record(s)); Claude Code ignores it',
      untyped: '{count} record(s) have no "type" field; Claude Code ignores them',
    },
  },
  check({ index, report }) {
    const seen = new Map<string, { first: RecordSummary; count: number }>();
    for (const record of index.records) {
      if (record.type !== '' && isKnownRecordType(record.type)) continue;
      const entry = seen.get(record.type);
      if (entry === undefined) seen.set(record.type, { first: record, count: 1 });
      else entry.count++;
    }
    for (const [type, { first, count }] of seen) {
      if (type === '') report({ messageId: 'untyped', data: { count }, record: first });
      else report({ messageId: 'unknown', data: { type: type.slice(0, 60), count }, record: first });
    }
  },
});
