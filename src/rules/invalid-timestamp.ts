/**
 * invalid-timestamp
 *
 * ## What it detects
 * A conversation record (user, assistant, system, attachment, progress)
 * whose `timestamp` is missing or is not ISO-8601 UTC with a `Z`
 * (`2026-01-05T03:47:16.591Z`).
 *
 * ## Why it matters
 * Claude Code compares timestamp strings to pick the leaf and tie-breaks,
 * and its 5-second bridge over a missing parent needs a timestamp
 * `Date.parse` can read. A bad timestamp can make resume
 * open the wrong branch or fail to bridge a gap it would otherwise bridge.
 *
 * ## Fix
 * None: the true time is unknown.
 *
 * ## Known false positives
 * Hand-written fixtures with placeholder timestamps.
 */
import { jsonText } from '../core/json-text.js';
import { defineRule } from './rule.js';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

export default defineRule({
  meta: {
    id: 'invalid-timestamp',
    description: 'Conversation records carry an ISO-8601 UTC timestamp',
    severity: 'warning',
    messages: {
      missing: '{type} record has no timestamp',
      invalid: 'timestamp "{value}" is not ISO-8601 UTC (YYYY-MM-DDTHH:MM:SS.sssZ)',
    },
  },
  check({ index, report }) {
    for (const record of index.records) {
      if (!index.isChainRow(record) && record.type !== 'progress') continue;
      if (record.timestamp === undefined) {
        // The summary keeps string timestamps only; tell absent from non-string.
        const raw = index.recordObject(record)?.timestamp;
        if (raw === undefined) report({ messageId: 'missing', data: { type: record.type }, record });
        // jsonText: a non-string timestamp may be nested too deep for JSON.stringify.
        else report({ messageId: 'invalid', data: { value: jsonText(raw, 40) }, record });
      } else if (!ISO_UTC.test(record.timestamp) || Number.isNaN(record.time)) {
        report({ messageId: 'invalid', data: { value: record.timestamp.slice(0, 40) }, record });
      }
    }
  },
});
