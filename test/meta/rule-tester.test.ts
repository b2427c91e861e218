/**
 * The rule tester checks itself: each kind of mistake it promises to catch
 * makes a case fail, and a correct case passes.
 */
import { describe, expect, it } from 'vitest';
import orphanRoot from '../../src/rules/orphan-root.js';
import { defineRule } from '../../src/rules/rule.js';
import { duplicateCases, lintCase, runInvalidCase, runValidCase, sessionFileOf } from '../helpers/rule-tester.js';
import { PROJECT_FOLDER, SESSION_ID, assistant, jsonl, resetClock, user, uuidOf } from '../helpers/records.js';

const midFileRoot = () => [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { gapMs: 60_000 }), assistant('a2', { parent: 'u2' })];
const good = { messageId: 'cutsHistory', line: 3, uuid: 'u2', fix: { applicability: 'unsafe' as const } };

const thrower = defineRule({
  meta: { id: 'throws', description: 'd', severity: 'error', messages: { m: 'x' } },
  check() {
    throw new Error('boom');
  },
});

const mutator = defineRule({
  meta: { id: 'mutates', description: 'd', severity: 'error', messages: { m: 'x' } },
  check({ index }) {
    (index.records[0] as { line: number }).line = 99;
  },
});

describe('rule tester', () => {
  it('passes a correct invalid case and a correct valid case', () => {
    expect(() => runInvalidCase(orphanRoot, { records: midFileRoot(), errors: [good] }, 'ok')).not.toThrow();
    expect(() => runValidCase(orphanRoot, { records: [user('u1')] }, 'ok')).not.toThrow();
  });

  it('fails a valid case that has findings', () => {
    expect(() => runValidCase(orphanRoot, { records: midFileRoot() }, 'v')).toThrow(/expected no findings/);
  });

  it('fails on a wrong line, messageId, uuid, severity or count', () => {
    const run = (e: object, more: object[] = []) => () =>
      runInvalidCase(orphanRoot, { records: midFileRoot(), errors: [{ ...good, ...e }, ...(more as [])] }, 'i');
    expect(run({ line: 4 })).toThrow(/line/);
    expect(run({ messageId: 'orphan' })).toThrow(/messageId/);
    expect(run({ messageId: 'nope' })).toThrow(/not a messageId/);
    expect(run({ uuid: 'u1' })).toThrow(/uuid/);
    expect(run({ severity: 'warning' })).toThrow(/severity/);
    expect(run({}, [good])).toThrow(/number of findings/);
  });

  it('requires a fix expectation from a fixable rule, and checks it', () => {
    const run = (fix: unknown) => () =>
      runInvalidCase(orphanRoot, { records: midFileRoot(), errors: [{ ...good, fix } as typeof good] }, 'f');
    expect(run(undefined)).toThrow(/say fix/);
    expect(run(null)).toThrow(/expected no fix/);
    expect(run({ applicability: 'safe' })).toThrow(/applicability/);
  });

  it('fails when the rule throws, and when it writes to the index', () => {
    expect(() => runValidCase(thrower, { records: [user('u1')] }, 't')).toThrow(/threw/);
    expect(() => runValidCase(mutator, { records: [user('u1')] }, 'm')).toThrow(/threw/);
  });

  it('finds repeated cases, also when only the clock differs', () => {
    resetClock();
    const first = midFileRoot();
    const second = midFileRoot(); // same records, later timestamps
    const gap = [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { gapMs: 9_000 }), assistant('a2', { parent: 'u2' })];
    const repeats = duplicateCases({
      valid: [{ records: [user('x')] }, { text: '{}\n' }, { text: '{}\n' }],
      invalid: [
        { records: first, errors: [good] },
        { records: second, errors: [good] },
        { records: gap, errors: [good] },
        { records: first, role: 'subagent', errors: [good] },
      ],
    });
    expect(repeats).toEqual([
      ['valid[2]', 'valid[1]'],
      ['invalid[1]', 'invalid[0]'],
    ]);
  });

  it('builds the file a case describes', () => {
    expect(sessionFileOf({})).toMatchObject({ role: 'main', projectFolderName: PROJECT_FOLDER, layoutSessionId: SESSION_ID });
    expect(sessionFileOf({ role: 'subagent' })).toMatchObject({ role: 'subagent', projectFolderName: PROJECT_FOLDER, layoutSessionId: SESSION_ID });
    expect(sessionFileOf({ projectFolderName: 'C--x' }).projectFolderName).toBe('C--x');
    const { index } = lintCase([], { text: jsonl([user('u1')]) });
    expect(index.records[0]?.uuid).toBe(uuidOf('u1'));
  });
});

describe('record builders', () => {
  it('map short ids to fixed canonical lower-case uuids', () => {
    expect(uuidOf('u1')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidOf('u1')).toBe(uuidOf('u1'));
    expect(uuidOf('u1')).not.toBe(uuidOf('u2'));
    expect(uuidOf(uuidOf('u1'))).toBe(uuidOf('u1'));
  });

  it('write the fields in Claude Code order, with timestamps one second apart', () => {
    resetClock();
    const u = user('u1');
    const a = assistant('a1', { parent: 'u1' });
    expect(Object.keys(u).slice(0, 10)).toEqual([
      'parentUuid',
      'isSidechain',
      'userType',
      'cwd',
      'sessionId',
      'version',
      'type',
      'message',
      'uuid',
      'timestamp',
    ]);
    expect(u.timestamp).toBe('2026-01-05T03:00:00.000Z');
    expect(a.timestamp).toBe('2026-01-05T03:00:01.000Z');
    expect(a.parentUuid).toBe(uuidOf('u1'));
    expect(jsonl([u, a])).toBe(`${JSON.stringify(u)}\n${JSON.stringify(a)}\n`);
    expect(jsonl([u]).startsWith('{"parentUuid":null,"isSidechain":false,')).toBe(true);
  });
});
