import { describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import type { LintOptions } from '../../src/engine/linter.js';
import { resumeModel } from '../../src/core/resume.js';
import { RULES } from '../../src/rules/index.js';
import { defineRule, type Rule } from '../../src/rules/rule.js';
import { setFieldsEdits } from '../../src/core/fix-builders.js';
import { ConcurrentModificationError } from '../../src/core/errors.js';
import { bufferSource } from '../../src/core/reader.js';
import { MAX_PASSES, offersFix, optInRuleIds, planFile } from '../../src/repair/plan.js';
import { planBytes } from '../helpers/plan-bytes.js';
import { assistant, jsonl, resetClock, toolResult, user, uuidOf } from '../helpers/records.js';
import { thinkingBlock } from '../helpers/fix-twice.js';
import type { SessionIndex } from '../../src/core/session-index.js';
import { indexText } from '../support/corpus.js';

const file = classifyPath('/projects/-home-u-proj/0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl', '/');
const all: LintOptions = { rules: RULES, severities: new Map() };

/** A rule whose fix rewrites the first record's cwd, and (with from/to swapped) one that undoes it. */
function flip(id: string, from: string, to: string, severity: 'warning' | 'info'): Rule {
  return defineRule({
    meta: { id, description: 'test', severity, fixable: 'safe', messages: { m: 'flip' } },
    check({ index, report }) {
      const r = index.records[0];
      if (r !== undefined && r.cwd === from) {
        report({ messageId: 'm', record: r, fix: { title: id, applicability: 'safe', edits: () => setFieldsEdits(index, r, { cwd: to }) } });
      }
    },
  });
}

describe('planFile', () => {
  it('refuses a file that shrinks while it is read, as changed meanwhile', async () => {
    resetClock();
    const bytes = Buffer.from(jsonl([user('u1', { text: 'hi' }), assistant('a1', { parent: 'u1' })]));
    // A source that says it is longer than the bytes it gives: the file was cut after its size was taken.
    const cut = { size: bytes.length + 100, read: bufferSource(bytes).read, close: () => undefined };
    await expect(planFile(file, cut, all, { allow: new Set(['safe']) })).rejects.toThrow(ConcurrentModificationError);
  });

  it('applies opt-in fixes only when their rule is named', async () => {
    resetClock();
    const bytes = Buffer.from(jsonl([user('u1', { text: 'typed' }), assistant('a1', { parent: 'u1', toolUse: ['t1'] })]));
    const unsafe = await planBytes(file, bytes, all, { allow: new Set(['safe', 'unsafe']) });
    expect(unsafe.applied).toEqual([]);
    const named = await planBytes(file, bytes, all, {
      allow: new Set(['safe', 'unsafe']),
      rules: new Set(['string-content', 'dangling-tool-use']),
    });
    expect(named.applied.map((a) => a.ruleId).sort()).toEqual(['dangling-tool-use', 'string-content']);
    const callId = indexText(bytes).records[1]?.toolUseIds[0];
    const index = indexText(named.after);
    expect(index.records.map((r) => [r.type, r.content, r.toolResultIds])).toEqual([
      ['user', 'array', []],
      ['assistant', 'array', []],
      ['user', 'array', [callId]],
    ]);
  });

  it('drops a fix that would lower resume fidelity, and says why', async () => {
    resetClock();
    const records = [user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1' }), assistant('a2', { parent: 'u2' })];
    const bytes = Buffer.from(jsonl(records));
    // A rule whose "fix" cuts the chain: the gate must refuse it.
    const cutter: Rule = defineRule({
      meta: { id: 'cutter', description: 'test', severity: 'error', fixable: 'safe', messages: { m: 'cut' } },
      check({ index, report }) {
        const r = index.records[2];
        if (r !== undefined && r.parentUuid !== null) {
          report({ messageId: 'm', record: r, fix: { title: 'cut', applicability: 'safe', edits: () => setFieldsEdits(index, r, { parentUuid: null }) } });
        }
      },
    });
    const plan = await planBytes(file, bytes, { rules: [cutter], severities: new Map() }, { allow: new Set(['safe']) });
    expect(plan.applied).toEqual([]);
    expect(plan.after.equals(bytes)).toBe(true);
    expect(plan.skipped.map((s) => s.reason)).toEqual(['not applied: resume would no longer load 2 message(s) it loads today']);
    expect(resumeModel(indexText(plan.after)).loaded).toBe(4);
  });

  it('deletes the superseded body of a reply written again (resume already loses it), leaving a file at fidelity 1 that plans nothing more', async () => {
    resetClock();
    const first = assistant('a1', { parent: 'u1', text: 'the first answer' });
    const records = [user('u1'), first, user('u2', { parent: 'a1' }), assistant('a1', { parent: 'u1', text: 'the answer written again' }), assistant('a2', { parent: 'u2' })];
    const bytes = Buffer.from(jsonl(records));
    const before = resumeModel(indexText(bytes));
    expect([before.loaded, before.total]).toEqual([4, 5]);
    const plan = await planBytes(file, bytes, all, { allow: new Set(['safe', 'unsafe']) });
    expect(plan.skipped).toEqual([]);
    expect(plan.applied.map((a) => [a.ruleId, a.edits.map((e) => [e.kind, e.line])])).toEqual([['duplicate-uuid', [['delete', 2]]]]);
    const after = resumeModel(indexText(plan.after));
    expect([after.loaded, after.total, after.fidelity]).toEqual([4, 4, 1]);
    expect(after.messages.map((m) => m.excerpt)).toEqual(before.messages.map((m) => m.excerpt));
    const again = await planBytes(file, plan.after, all, { allow: new Set(['safe', 'unsafe']) });
    expect(again.applied).toEqual([]);
    expect(again.after.equals(plan.after)).toBe(true);
  });

  it('refuses a relink that makes resume drop messages for none it brings back, though they are off the intended conversation', async () => {
    // Found by fuzzing the fixes against the real CLI: the intended conversation is built from the same
    // repair targets, so a wrong target makes what it drops look like history loaded through a wrong stand-in.
    const cases = {
      // A forward link: the stand-in the CLI takes for p4 descends from p4, so the safe relink fell back to p1.
      forwardLink: () => [
        user('p1', { text: 'prompt one' }),
        user('p2', { parent: 'p4', text: 'prompt two', gapMs: 3_000 }),
        user('p3', { parent: 'p2', text: 'prompt three', gapMs: 3_000 }),
        user('p4', { parent: 'ghost', text: 'prompt four', gapMs: 5_000 }),
      ],
    };
    for (const [name, records] of Object.entries(cases)) {
      resetClock();
      const bytes = Buffer.from(jsonl(records()));
      const plan = await planBytes(file, bytes, all, { allow: new Set(['safe', 'unsafe']) });
      expect(resumeModel(indexText(plan.after)).loaded, name).toBe(resumeModel(indexText(bytes)).loaded);
      expect(plan.skipped.map((s) => s.reason).join('\n'), name).toMatch(/resume would no longer load \d+ message\(s\) it loads today, for 0 it does not/);
    }
  });

  it('refuses a fix that makes another rule fire (the gate stops fix ping-pong early)', async () => {
    resetClock();
    const bytes = Buffer.from(jsonl([user('u1'), toolResult('r1', { parent: 'u1', toolUseId: 't1' })]));
    const plan = await planBytes(file, bytes, { rules: [flip('on', '/home/u/proj', '/x', 'warning'), flip('off', '/x', '/home/u/proj', 'warning')], severities: new Map() }, { allow: new Set(['safe']) });
    expect(plan.applied).toEqual([]);
    expect(plan.skipped.map((s) => s.reason)).toEqual(['not applied: it would add 1 off warning finding(s)']);
  });

  it('leaves out a fix whose edits cannot be built, even for a finding without a uuid, and goes on', async () => {
    resetClock();
    const bytes = Buffer.from(jsonl([user('u1'), assistant('a1', { parent: 'u1' })]));
    // What rewriting a record nested thousands of levels deep throws.
    const tooDeep: Rule = defineRule({
      meta: { id: 'too-deep', description: 'test', severity: 'error', fixable: 'safe', messages: { m: 'deep' } },
      check({ report }) {
        report({
          messageId: 'm',
          line: 2,
          fix: {
            title: 'rewrite',
            applicability: 'safe',
            edits: () => {
              throw new RangeError('Maximum call stack size exceeded');
            },
          },
        });
      },
    });
    const plan = await planBytes(file, bytes, { rules: [tooDeep], severities: new Map() }, { allow: new Set(['safe']) });
    expect(plan.applied).toEqual([]);
    expect(plan.after.equals(bytes)).toBe(true);
    expect(plan.skipped.map((s) => [s.line, s.reason])).toEqual([[2, 'not applied: the record cannot be rewritten (nested too deep)']]);
  });

  it('drops a fix whose record would not match its schema', async () => {
    resetClock();
    const bytes = Buffer.from(jsonl([user('u1'), assistant('a1', { parent: 'u1' })]));
    const breaker: Rule = defineRule({
      meta: { id: 'breaker', description: 'test', severity: 'error', fixable: 'safe', messages: { m: 'break' } },
      check({ index, report }) {
        const r = index.records[1];
        if (r !== undefined && r.uuid !== undefined) {
          report({ messageId: 'm', record: r, fix: { title: 'break', applicability: 'safe', edits: () => setFieldsEdits(index, r, { uuid: 42 }) } });
        }
      },
    });
    const plan = await planBytes(file, bytes, { rules: [breaker], severities: new Map() }, { allow: new Set(['safe']) });
    expect(plan.applied).toEqual([]);
    expect(plan.skipped.map((s) => s.reason)).toEqual([
      "not applied: the record it writes would not match its type's schema (uuid: Invalid input: expected string, received number)",
    ]);
  });

  it('stops when two rules undo each other instead of looping', async () => {
    resetClock();
    const bytes = Buffer.from(jsonl([user('u1'), toolResult('r1', { parent: 'u1', toolUseId: 't1' })]));
    // Info findings are not counted by the gate, so only the cycle check can stop this.
    const plan = await planBytes(file, bytes, { rules: [flip('on', '/home/u/proj', '/x', 'info'), flip('off', '/x', '/home/u/proj', 'info')], severities: new Map() }, { allow: new Set(['safe']) });
    expect(plan.applied.length).toBeLessThan(MAX_PASSES);
    // The text is back as it was: neither fix is made, and the plan says so rather than claiming two.
    expect(plan.applied).toEqual([]);
    expect(plan.after.equals(bytes)).toBe(true);
    expect(plan.skipped.map((s) => [s.ruleId, s.reason])).toEqual([
      ['on', 'not applied: another fix undoes it'],
      ['off', 'not applied: another fix undoes it'],
    ]);
  });
});

describe('planFile and a relink to a row the same pass deletes', () => {
  it('relinks in the next pass, to a row that is still there', async () => {
    // Found by fixing damaged corpus files in one folder: a1 lost its parent (null mid-file) and its
    // relink target k1, the thinking row of the same response, is unsigned, so thinking-signature's fix
    // deletes it. With another file of the folder holding k1's uuid (as a continuation's copied history
    // does), the gate saw nothing wrong with both in one pass, and the fixed file named a parent it no
    // longer held.
    resetClock();
    const bytes = Buffer.from(
      jsonl([
        user('u1'),
        assistant('k1', { parent: 'u1', messageId: 'M', content: [thinkingBlock('plan', '')] }),
        assistant('a1', { parent: null, messageId: 'M', text: 'the answer' }),
        user('u2', { parent: 'a1' }),
        assistant('a2', { parent: 'u2', messageId: 'N', text: 'the next answer' }),
      ]),
    );
    const elsewhere = (index: SessionIndex): void => index.setExternalParents(new Map([[uuidOf('k1'), { kind: 'other-session', path: '/projects/-home-u-proj/other.jsonl' }]]));
    const plan = await planBytes(file, bytes, all, { allow: new Set(['safe', 'unsafe']), link: elsewhere });
    expect(plan.applied.map((a) => [a.pass, a.ruleId])).toEqual([
      [1, 'thinking-signature'],
      [2, 'orphan-root'],
    ]);
    const after = indexText(plan.after);
    expect(after.records.map((r) => r.uuid)).not.toContain(uuidOf('k1'));
    expect(after.records.find((r) => r.uuid === uuidOf('a1'))?.parentUuid).toBe(uuidOf('u1'));
  });
});

describe('planFile at its last pass', () => {
  /** A rule whose fix moves the first record's cwd one step on, up to /step/20: one fix a pass, none undoing another. */
  const stepper = defineRule({
    meta: { id: 'stepper', description: 'test', severity: 'info', fixable: 'safe', messages: { m: 'step' } },
    check({ index, report }) {
      const r = index.records[0];
      const step = Number(/^\/step\/(\d+)$/.exec(r?.cwd ?? '')?.[1] ?? Number.NaN);
      if (r !== undefined && step < 20) {
        report({ messageId: 'm', record: r, fix: { title: 'stepper', applicability: 'safe', edits: () => setFieldsEdits(index, r, { cwd: `/step/${step + 1}` }) } });
      }
    },
  });
  const lintStepper = { rules: [stepper], severities: new Map() };
  const from = (step: number): Buffer => Buffer.from(jsonl([user('u1', { cwd: `/step/${step}` })]));

  it('says when it stopped while fixes still applied, and not when they ran out first', async () => {
    resetClock();
    const cut = await planBytes(file, from(0), lintStepper, { allow: new Set(['safe']) });
    expect(cut.applied).toHaveLength(MAX_PASSES);
    expect(cut.cutShortAfter).toBe(MAX_PASSES);
    expect(indexText(cut.after).records[0]?.cwd).toBe(`/step/${MAX_PASSES}`);
    const done = await planBytes(file, from(20 - MAX_PASSES + 1), lintStepper, { allow: new Set(['safe']) });
    expect(done.applied).toHaveLength(MAX_PASSES - 1);
    expect(done.cutShortAfter).toBeUndefined();
  });
});

describe('offersFix', () => {
  const fix = { title: 't', applicability: 'safe' as const, edits: () => [] };
  const optIn = optInRuleIds(all);
  const finding = (ruleId: string, withFix = true) => ({ ruleId, messageId: 'm', severity: 'error' as const, message: 'm', line: 1, ...(withFix ? { fix } : {}) });

  it('offers a rule\'s fix unless --rule names other rules; an opt-in rule\'s only when named', () => {
    expect([...optIn].sort()).toEqual(['dangling-tool-use', 'orphan-tool-result', 'string-content']);
    expect(offersFix(finding('phantom-parent'), optIn, undefined)).toBe(true);
    expect(offersFix(finding('phantom-parent', false), optIn, undefined)).toBe(false);
    expect(offersFix(finding('phantom-parent'), optIn, new Set(['duplicate-uuid']))).toBe(false);
    expect(offersFix(finding('string-content'), optIn, undefined)).toBe(false);
    expect(offersFix(finding('string-content'), optIn, new Set(['phantom-parent']))).toBe(false);
    expect(offersFix(finding('string-content'), optIn, new Set(['string-content']))).toBe(true);
  });
});
