/**
 * Everything a rule, a model or a repair can ask a session index, as plain
 * values: what two ways of building one index (from the start, from a
 * stored checkpoint, in two parts) must agree on.
 */
import { SUMMARY_FIELDS } from '../../src/core/records.js';
import type { SessionIndex } from '../../src/core/session-index.js';

export function observedIndex(index: SessionIndex): unknown {
  const table = index.lineTable();
  const lines = [];
  for (let n = 1; n <= table.lineCount; n++) lines.push([table.offset(n), table.length(n), table.terminated(n), index.lineBytes(n).toString('latin1')]);
  return {
    records: index.records.map((r) => SUMMARY_FIELDS.map((f) => r[f])),
    invalidLines: index.invalidLines,
    stats: index.stats,
    lines,
    hasBom: table.hasBom,
    byUuid: [...index.byUuid].map(([uuid, r]) => [uuid, r.ordinal]),
    duplicates: [...index.duplicates].map(([uuid, copies]) => [uuid, copies.map((r) => r.ordinal)]),
    parents: index.records.map((r) => index.parentOf(r)?.ordinal),
    missing: index.records.map((r) => index.hasMissingParent(r)),
    unresolved: [...index.unresolvedParents()],
    effective: index.records.map((r) => index.isEffective(r)),
  };
}

const line = (o: object): string => `${JSON.stringify(o)}\n`;

/**
 * A transcript with a line of every kind a reader must count and carry
 * across a break in its reading: a BOM, CRLF, blank lines, a line that
 * starts with a BOM's bytes mid-file, a parent written after its child, a
 * response in two rows, unparseable, NUL-padded and glued lines, a
 * bookkeeping row, compact boundaries, a repeated uuid, a last-prompt row,
 * a torn last line.
 */
export const EVERY_KIND_OF_LINE: Buffer = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(line({ type: 'user', uuid: 'a', parentUuid: null, sessionId: 's', cwd: '/p', timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: 'héllo' } })),
  Buffer.from('{"type":"assistant","uuid":"b","parentUuid":"a","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}\r\n'),
  Buffer.from('\n   \n'),
  // A line that starts with a BOM's bytes in the middle of the file is not a BOM.
  Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"type":"user","uuid":"x","parentUuid":"a"}\n')]),
  Buffer.from('{"type":"user","uuid":"c","parentUuid":"later","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}\n'),
  Buffer.from('{"type":"assistant","uuid":"b2","parentUuid":"c","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"same response"}]}}\n'),
  Buffer.from('not json at all\n'),
  Buffer.from('\u0000\u0000{"type":"user","uuid":"n","parentUuid":"b","message":{"role":"user","content":"nul"}}\n'),
  Buffer.from('{"type":"user","uuid":"g1","parentUuid":"b"}{"type":"user","uuid":"g2","parentUuid":"g1"}\n'),
  Buffer.from(line({ type: 'queue-operation', operation: 'enqueue', timestamp: '2026-01-01T00:00:01Z', sessionId: 's' })),
  Buffer.from(line({ type: 'system', subtype: 'compact_boundary', uuid: 'cb', parentUuid: null, logicalParentUuid: 'c', compactMetadata: { preservedSegment: { anchorUuid: 'c', headUuid: 'a' } } })),
  Buffer.from(line({ type: 'user', uuid: 'a', parentUuid: null, message: { role: 'user', content: 'again, a repeated uuid' } })),
  Buffer.from(line({ type: 'user', uuid: 'later', parentUuid: 'a', message: { role: 'user', content: 'written after its child' } })),
  Buffer.from(line({ type: 'system', subtype: 'compact_boundary', uuid: 'cb2', parentUuid: null, content: 'Conversation compacted' })),
  Buffer.from(line({ type: 'last-prompt', leafUuid: 'later' })),
  Buffer.from('{"type":"user","uuid":"torn","parentUuid":"la'),
]);
