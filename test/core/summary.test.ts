/**
 * The index's compact record summary (src/core/records.ts): booleans kept as
 * bits and the fields most records leave unset kept in one shared object
 * must read back as the record says, for every field, and a copy with
 * changed fields (the SDK reader's queued prompt) must keep the others.
 */
import { describe, expect, it } from 'vitest';
import { ListTable } from '../../src/core/collections.js';
import { type RecordSummary, SUMMARY_FIELDS, summarize, withFields } from '../../src/core/records.js';
import type { JsonObject } from '../../src/core/types.js';

const keep = (s: string | undefined): string | undefined => s;
const of = (record: JsonObject): RecordSummary => summarize(record, 7, 3, undefined, keep);

describe('record summary', () => {
  it('reads every boolean back from its bit', () => {
    const flags = ['isSidechain', 'isMeta', 'isCompactSummary', 'explicit'] as const;
    for (const flag of flags) {
      const r = of({ type: 'user', uuid: 'u', [flag]: true, message: { role: 'user', content: 'hi' } });
      for (const other of flags) expect(r[other], `${flag} set, ${other} read`).toBe(other === flag);
      expect(r.teamName).toBe(false);
    }
    expect(of({ type: 'user', uuid: 'u', teamName: 'red', message: { role: 'user', content: 'x' } }).teamName).toBe(true);
    expect(of({ type: 'user', uuid: 'u', parentUuid: 5, message: { role: 'user', content: 'x' } }).parentUuidMalformed).toBe(true);
    expect(of({ type: 'assistant', uuid: 'a', message: { role: 'assistant', content: '  ' } }).bodyMalformed).toBe(true);
    expect(of({ type: 'user', uuid: 'u', message: { role: 'user', content: '[Request interrupted by user]' } }).interrupt).toBe(true);
    const quiet = of({ type: 'assistant', uuid: 'a', closesQuietTurn: true, message: { role: 'assistant', content: [{ type: 'text', text: 'No response requested.' }] } });
    expect(quiet.quietReply).toBe(true);
  });

  it('reads the rarely set fields, and shares them where unset', () => {
    const plain = of({ type: 'user', uuid: 'u', message: { role: 'user', content: 'hi' } });
    expect([plain.subtype, plain.logicalParentUuid, plain.leafUuid, plain.attachmentType, plain.originKind, plain.queued, plain.commandTag]).toEqual([
      undefined, undefined, undefined, undefined, undefined, undefined, undefined,
    ]);
    expect(plain.images).toEqual([]);
    const boundary = of({ type: 'system', subtype: 'compact_boundary', uuid: 's', logicalParentUuid: 'p', origin: { kind: 'task' } });
    expect([boundary.subtype, boundary.logicalParentUuid, boundary.originKind]).toEqual(['compact_boundary', 'p', 'task']);
    expect(of({ type: 'last-prompt', leafUuid: 'leaf', lastPrompt: 'go' }).leafUuid).toBe('leaf');
    expect(of({ type: 'attachment', uuid: 't', attachment: { type: 'queued_command', prompt: 'later' } }).attachmentType).toBe('queued_command');
    expect(of({ type: 'user', uuid: 'u', message: { role: 'user', content: '<command-name>/clear</command-name>' } }).commandTag).toBe('record');
    // Records that set none of them share one object for them; one that does has its own.
    const rareOf = (r: RecordSummary): unknown => (r as unknown as { rare: unknown }).rare;
    expect(rareOf(plain)).toBe(rareOf(of({ type: 'assistant', uuid: 'a', message: { role: 'assistant', content: [{ type: 'text', text: 'x' }] } })));
    expect(rareOf(boundary)).not.toBe(rareOf(plain));
  });

  it('keeps the fields it is not told to change in a copy', () => {
    const r = of({ type: 'attachment', uuid: 'q', parentUuid: 'p', isSidechain: true, timestamp: '2026-01-01T00:00:00.000Z', attachment: { type: 'queued_command', prompt: 'later' } });
    const copy = withFields(r, { type: 'user', uuid: 'q2', isMeta: true, originKind: 'human' });
    expect([copy.type, copy.uuid, copy.isMeta, copy.originKind]).toEqual(['user', 'q2', true, 'human']);
    expect([copy.ordinal, copy.line, copy.parentUuid, copy.isSidechain, copy.timestamp, copy.time, copy.attachmentType, copy.excerpt]).toEqual([
      3, 7, 'p', true, '2026-01-01T00:00:00.000Z', Date.parse('2026-01-01T00:00:00.000Z'), 'queued_command', 'later',
    ]);
    expect(r.isMeta).toBe(false);
    expect(withFields(copy, { type: 'user', uuid: 'q3', isMeta: false, originKind: undefined }).isMeta).toBe(false);
  });

  it('keys a signed thinking block by the last characters of its signature', () => {
    const signature = `${'S'.repeat(500)}abcdefghijklmnopqrstuvwx`;
    const r = of({ type: 'assistant', uuid: 'a', message: { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature }] } });
    expect(r.signatureKeys).toEqual(['abcdefghijklmnopqrstuvwx']);
  });

  it('reads back the envelope of each record when records alternate between envelopes', () => {
    const envelopes = [
      { sessionId: 's1', cwd: '/a', slug: 'x', agentId: undefined },
      { sessionId: 's1', cwd: '/a', slug: 'x', agentId: 'agent-1' },
      { sessionId: 's1', cwd: '/b', slug: undefined, agentId: undefined },
      { sessionId: 's1', cwd: '', slug: undefined, agentId: undefined },
      { sessionId: undefined, cwd: undefined, slug: undefined, agentId: undefined },
    ];
    for (const e of [...envelopes, ...[...envelopes].reverse(), ...envelopes]) {
      const r = of({ type: 'user', uuid: 'u', ...e, message: { role: 'user', content: 'hi' } });
      expect({ sessionId: r.sessionId, cwd: r.cwd, slug: r.slug, agentId: r.agentId }).toEqual(e);
    }
  });

  it("shares a recent call's list of tool ids with the row answering it, and only when the ids are the same", () => {
    const call = (id: string): RecordSummary =>
      of({ type: 'assistant', uuid: `a-${id}`, message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] } });
    const answer = (...ids: string[]): RecordSummary =>
      of({ type: 'user', uuid: `u-${ids.join()}`, message: { role: 'user', content: ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: 'ok' })) } });
    const first = call('toolu_first');
    const second = call('toolu_second');
    const answerFirst = answer('toolu_first');
    expect(answerFirst.toolResultIds).toEqual(['toolu_first']);
    expect(answerFirst.toolResultIds).toBe(first.toolUseIds);
    expect(answer('toolu_second').toolResultIds).toBe(second.toolUseIds);
    const both = answer('toolu_first', 'toolu_second');
    expect(both.toolResultIds).toEqual(['toolu_first', 'toolu_second']);
    expect(both.toolResultIds).not.toBe(first.toolUseIds);
    expect(answer('toolu_other').toolResultIds).toEqual(['toolu_other']);
  });
});

const fieldsOf = (r: RecordSummary): Record<string, unknown> => Object.fromEntries(SUMMARY_FIELDS.map((f) => [f, r[f]]));

describe('bookkeeping rows', () => {
  const rows: JsonObject[] = [
    { type: 'queue-operation', operation: 'enqueue', timestamp: '2026-01-01T00:00:00.000Z', sessionId: 's', content: 'later' },
    { type: 'file-history-snapshot', messageId: 'm', snapshot: { files: {} }, isSnapshotUpdate: false },
    { type: 'permission-mode', permissionMode: 'plan', sessionId: 's', isSidechain: false },
  ];
  it('read the same through the light summary as through a full one', () => {
    for (const row of rows) {
      // An `origin` object (of no kind) keeps a row off the light path and changes no field.
      expect(fieldsOf(of(row)), String(row.type)).toEqual(fieldsOf(of({ ...row, origin: {} })));
    }
  });
  it('take the full summary when they carry more than type, time and session', () => {
    const r = of({ type: 'queue-operation', operation: 'enqueue', uuid: 'q', parentUuid: 'p', cwd: '/x', isSidechain: true });
    expect([r.uuid, r.parentUuid, r.cwd, r.isSidechain]).toEqual(['q', 'p', '/x', true]);
  });
});

describe('grouped tables', () => {
  it('keep a lone value without a list, and every value in order once there are more', () => {
    const [a, b, c, d] = [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }];
    const table = new ListTable<string, { n: number }>();
    table.add('x', a);
    table.add('y', b);
    table.add('x', c);
    table.add('x', d);
    expect(table.trim().get('x')).toEqual([a, c, d]);
    expect(table.get('y')).toEqual([b]);
    expect(table.get('z')).toEqual([]);
    // The lone value is stored as itself: the list handed out is a new one each time.
    expect(table.get('y')).not.toBe(table.get('y'));
    expect(table.get('x')).toBe(table.get('x'));
  });
});
