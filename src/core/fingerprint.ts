/**
 * A finding's identity across runs, built from what it is about (rule,
 * session, record uuid, message id), never from its line: a repair that
 * shifts lines, or a session that grows, must not change it. SARIF output
 * and the baseline share it.
 */
import { createHash } from 'node:crypto';
import type { Finding } from './types.js';

/**
 * `sha256(ruleId \0 session \0 (uuid | "line:" + line) \0 messageId)`, hex. A
 * repeat of the same key in one file (e.g. two copies of one uuid) appends
 * `\0#n`, so distinct findings never share a fingerprint. Findings on lines
 * without a record (an unparseable line) fall back to the line number.
 */
export function fingerprintOf(ruleId: string, session: string, finding: Finding, occurrence = 0): string {
  const anchor = finding.uuid ?? `line:${finding.line}`;
  const key = [ruleId, session, anchor, finding.messageId].join('\0') + (occurrence > 0 ? `\0#${occurrence}` : '');
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The fingerprint of each of one file's findings, in order, counting repeats. */
export function fingerprintsOf(findings: readonly Finding[], session: string): string[] {
  const seen = new Map<string, number>();
  return findings.map((f) => {
    const key = [f.ruleId, f.uuid ?? `line:${f.line}`, f.messageId].join('\0');
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return fingerprintOf(f.ruleId, session, f, occurrence);
  });
}
