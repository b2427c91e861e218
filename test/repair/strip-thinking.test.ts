/**
 * `cclint fix --strip-thinking`: the planner's requested repair that drops
 * every thinking block of the conversation resume sends, for a session
 * stuck on "thinking … cannot be modified" / "Invalid signature" where the
 * cause (an edited text under a kept signature, with no other copy) cannot
 * be seen offline.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resumeModel } from '../../src/core/resume.js';
import type { JsonObject } from '../../src/core/types.js';
import type { PlanPolicy } from '../../src/repair/plan.js';
import { planBytes } from '../helpers/plan-bytes.js';
import { RULES } from '../../src/rules/index.js';
import { STRIP_THINKING_TITLE, stripThinkingFinding } from '../../src/rules/thinking-signature.js';
import { thinkingBlock } from '../helpers/fix-twice.js';
import { assistant, jsonl, toolResult, user, uuidOf } from '../helpers/records.js';
import { indexOf, lintCase, sessionFileOf } from '../helpers/rule-tester.js';
import { BUNDLED_CORPUS, type Corpus, corpusFiles, describeSharedCorpus } from '../support/corpus.js';

const lint = { rules: RULES, severities: new Map() };
const requested: PlanPolicy['requested'] = (index) => {
  const f = stripThinkingFinding(index, resumeModel(index));
  return f === undefined ? [] : [f];
};

const think = (id: string, parent: string, messageId: string, text: string): JsonObject =>
  assistant(id, { parent, messageId, content: [thinkingBlock(text)] });

// The shape Claude Code writes: one row per content block, the rows of one
// response sharing its message.id; a tool result between two responses; a
// rewind that left an abandoned attempt (u2b and its response) beside the
// prompt typed again (u2). The thinking of k2 was edited under its kept
// signature, which nothing in the file shows (no other copy).
const wedged: readonly JsonObject[] = [
  user('u1'),
  think('k1', 'u1', 'M1', 'plan the change'),
  assistant('a1', { parent: 'k1', messageId: 'M1', toolUse: ['t1'] }),
  toolResult('r1', { parent: 'a1', toolUseId: 't1' }),
  think('k2', 'r1', 'M2', 'the test passes (edited by hand)'),
  assistant('a2', { parent: 'k2', messageId: 'M2', text: 'Done.' }),
  user('u2b', { parent: 'a2', text: 'an attempt abandoned at a rewind' }),
  think('kb', 'u2b', 'MB', 'abandoned thinking'),
  assistant('ab', { parent: 'kb', messageId: 'MB', text: 'Abandoned answer.' }),
  user('u2', { parent: 'a2', text: 'typed again after the rewind' }),
  assistant('x1', { parent: 'u2', messageId: 'M3', content: [thinkingBlock('one row, two blocks'), { type: 'text', text: 'Both.' }] }),
];

const policy = (allow: readonly ('safe' | 'unsafe')[] = ['safe']): PlanPolicy => ({ allow: new Set(allow), requested });

async function plan(records: readonly JsonObject[] | Buffer, p: PlanPolicy = policy()) {
  const bytes = Buffer.isBuffer(records) ? records : Buffer.from(jsonl(records));
  return planBytes(sessionFileOf({ text: bytes }), bytes, lint, p);
}

const linesOf = (bytes: Buffer): JsonObject[] =>
  bytes
    .toString()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JsonObject);
const byUuid = (bytes: Buffer): Map<string, JsonObject> => new Map(linesOf(bytes).map((r) => [r.uuid as string, r]));
const blockTypes = (r: JsonObject | undefined): string[] =>
  ((r?.message as JsonObject).content as JsonObject[]).map((b) => b.type as string);

describe('--strip-thinking (planner)', () => {
  it('finds nothing to report in the wedged session: the edit cannot be seen offline', () => {
    const { findings } = lintCase(RULES, { records: wedged });
    expect(findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(resumeModel(indexOf({ records: wedged })).request().valid).toBe(true);
  });

  it('drops every thinking block of the resumed chain, relinks past the rows it empties, leaves the abandoned attempt', async () => {
    const p = await plan(wedged);
    expect(p.applied.map((a) => [a.ruleId, a.title, a.applicability, a.pass])).toEqual([
      ['thinking-signature', STRIP_THINKING_TITLE, 'unsafe', 1],
    ]);
    const after = byUuid(p.after);
    // Rows holding only thinking are gone; the rows below hang from the row above.
    expect(after.has(uuidOf('k1'))).toBe(false);
    expect(after.has(uuidOf('k2'))).toBe(false);
    expect(after.get(uuidOf('a1'))?.parentUuid).toBe(uuidOf('u1'));
    expect(after.get(uuidOf('a2'))?.parentUuid).toBe(uuidOf('r1'));
    // A row with thinking and text keeps its text.
    expect(blockTypes(after.get(uuidOf('x1')))).toEqual(['text']);
    // Off the resumed chain: untouched.
    expect(blockTypes(after.get(uuidOf('kb')))).toEqual(['thinking']);
    expect(after.get(uuidOf('ab'))?.parentUuid).toBe(uuidOf('kb'));
    // Every other line keeps its exact bytes.
    const rewritten = ['k1', 'k2', 'a1', 'a2', 'x1'].map((id) => `"uuid":"${uuidOf(id)}"`);
    const keptLines = jsonl(wedged)
      .split('\n')
      .filter((l) => l !== '' && !rewritten.some((u) => l.includes(u)));
    for (const line of keptLines) expect(p.after.toString()).toContain(`${line}\n`);
    expect(p.after.toString().split('\n').filter((l) => l !== '')).toHaveLength(wedged.length - 2);
  });

  it('leaves a request the API rules accept, with no thinking in it, and no finding', async () => {
    const p = await plan(wedged);
    const model = resumeModel(indexOf({ text: p.after }));
    expect(model.request().valid).toBe(true);
    expect(model.chain.filter((r) => /[kKr]/.test(r.blocks))).toEqual([]);
    // Every message of the conversation but the thinking rows is still sent.
    expect(model.messages.map((m) => m.uuid)).toEqual(['u1', 'a1', 'r1', 'a2', 'u2', 'x1'].map(uuidOf));
    const { findings } = lintCase(RULES, { text: p.after });
    expect(findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(p.remaining.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(p.resumeAfter).toEqual({ ...p.resumeBefore, loaded: 6, total: 6, fidelity: 1, sdk: p.resumeAfter.sdk });
  });

  it('applied twice changes nothing the second time', async () => {
    const first = await plan(wedged);
    const second = await plan(first.after);
    expect(second.applied).toEqual([]);
    expect(second.after.equals(first.after)).toBe(true);
  });

  it('is only done when asked: the same session without the flag is left as it is', async () => {
    const p = await plan(wedged, { allow: new Set(['safe', 'unsafe']) });
    expect(p.applied).toEqual([]);
    expect(p.after.equals(p.before)).toBe(true);
  });

  it('needs no --unsafe (the flag is the consent), yet goes through the questions like any fix', async () => {
    const asked: string[] = [];
    const declined = await plan(wedged, {
      ...policy(),
      decide: async (finding, fix) => {
        asked.push(`${finding.ruleId} ${fix.applicability} ${fix.title}`);
        return false;
      },
    });
    expect(asked).toEqual([`thinking-signature unsafe ${STRIP_THINKING_TITLE}`]);
    expect(declined.applied).toEqual([]);
    expect(declined.skipped.map((s) => s.reason)).toEqual(['declined']);
    expect(declined.after.equals(declined.before)).toBe(true);
  });

  it('covers a thinking-signature error too, with no "available with --unsafe" left over', async () => {
    const unsigned = [
      user('u1'),
      assistant('k1', { parent: 'u1', messageId: 'M', content: [thinkingBlock('plan', '')] }),
      assistant('a1', { parent: 'k1', messageId: 'M', text: 'Hi.' }),
      user('u2', { parent: 'a1' }),
      assistant('x2', { parent: 'u2', messageId: 'N', content: [thinkingBlock('later'), { type: 'text', text: 'Fine.' }] }),
    ];
    const found = lintCase(RULES, { records: unsigned }).findings.filter((f) => f.severity !== 'info');
    expect(found.map((f) => [f.ruleId, f.severity])).toEqual([['thinking-signature', 'error']]);
    const p = await plan(unsigned);
    expect(p.applied.map((a) => a.title)).toEqual([STRIP_THINKING_TITLE]);
    expect(p.skipped).toEqual([]);
    expect(p.remaining.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(p.after.toString()).not.toContain('"thinking"');
    expect(resumeModel(indexOf({ text: p.after })).request().valid).toBe(true);
  });

  it('strips redacted thinking too, and again on the history a relink brings back', async () => {
    // u2 lost its parent link a minute after a1 (a phantom the CLI does not
    // bridge): resume sends u2… only, so the first pass strips k2; the relink
    // of the same pass brings u1…a1 back, and the next pass strips k1.
    const broken = [
      user('u1'),
      assistant('k1', { parent: 'u1', messageId: 'M1', content: [{ type: 'redacted_thinking', data: 'abc' }] }),
      assistant('a1', { parent: 'k1', messageId: 'M1', text: 'First.' }),
      user('u2', { parent: 'gone', gapMs: 60_000 }),
      think('k2', 'u2', 'M2', 'second'),
      assistant('a2', { parent: 'k2', messageId: 'M2', text: 'Second.' }),
    ];
    const p = await plan(broken);
    expect(p.applied.map((a) => [a.ruleId, a.pass])).toEqual([
      ['thinking-signature', 1],
      ['phantom-parent', 1],
      ['thinking-signature', 2],
    ]);
    expect(p.after.toString()).not.toMatch(/"(?:redacted_)?thinking"/);
    const model = resumeModel(indexOf({ text: p.after }));
    expect(model.messages.map((m) => m.uuid)).toEqual(['u1', 'a1', 'u2', 'a2'].map(uuidOf));
    expect(model.request().valid).toBe(true);
  });

  it('keeps the thinking of the latest response when the request ends with its tool results', async () => {
    // Interrupted after a tool ran: the next prompt joins the tool result, and
    // with thinking on the API requires the message before it to start with
    // thinking (the api-validator's thinking-required-final). Its thinking
    // stays; the earlier response's goes.
    const toolTail = [
      user('u1'),
      think('k1', 'u1', 'M1', 'first'),
      assistant('a1', { parent: 'k1', messageId: 'M1', text: 'First.' }),
      user('u2', { parent: 'a1' }),
      think('k2', 'u2', 'M2', 'run it'),
      assistant('a2', { parent: 'k2', messageId: 'M2', toolUse: ['t2'] }),
      toolResult('r2', { parent: 'a2', toolUseId: 't2' }),
    ];
    const finding = stripThinkingFinding(indexOf({ records: toolTail }), resumeModel(indexOf({ records: toolTail })));
    expect(finding?.message).toBe(
      '--strip-thinking: 1 thinking block(s) in 1 row(s) of the resumed conversation; the 1 of the latest response stay: the request ends with its tool results, and the API requires that message to start with thinking',
    );
    const p = await plan(toolTail);
    const after = byUuid(p.after);
    expect(after.has(uuidOf('k1'))).toBe(false);
    expect(blockTypes(after.get(uuidOf('k2')))).toEqual(['thinking']);
    expect(resumeModel(indexOf({ text: p.after })).request().valid).toBe(true);
    expect((await plan(p.after)).applied).toEqual([]);
    // The same with the result never written: the CLI answers the call itself.
    const cut = toolTail.slice(0, -1);
    const q = await plan(cut);
    expect(byUuid(q.after).has(uuidOf('k1'))).toBe(false);
    expect(blockTypes(byUuid(q.after).get(uuidOf('k2')))).toEqual(['thinking']);
    // Nothing else to strip: no finding, nothing to do.
    const only = toolTail.slice(3).map((r, i) => (i === 0 ? { ...r, parentUuid: null } : r));
    expect(stripThinkingFinding(indexOf({ records: only }), resumeModel(indexOf({ records: only })))).toBeUndefined();
  });

  it('has nothing to do on a session without thinking', async () => {
    const plain = [user('u1'), assistant('a1', { parent: 'u1' })];
    expect(stripThinkingFinding(indexOf({ records: plain }), resumeModel(indexOf({ records: plain })))).toBeUndefined();
    const p = await plan(plain);
    expect(p.applied).toEqual([]);
  });
});

/**
 * Every corpus session with thinking on its resumed chain: the strip applies
 * (unless the only thinking is the latest response's before its tool
 * results), leaves no thinking on the chain but that, makes or keeps the
 * request valid, costs no message but the thinking-only rows it removes,
 * and a second run changes nothing.
 */
function sweep(corpus: Corpus): void {
  const thinkingOnChain = (records: ReturnType<typeof resumeModel>['chain']) => records.filter((r) => r.type === 'assistant' && /[kKr]/.test(r.blocks));
  const files = corpusFiles(corpus).filter((f) => !f.relative.includes('/subagents/'));
  it(`strips every session with thinking on its resumed chain (${files.length} files)`, async () => {
    let stripped = 0;
    for (const f of files) {
      const bytes = fs.readFileSync(f.absolute);
      const before = resumeModel(indexOf({ text: bytes }));
      const rows = thinkingOnChain(before.chain);
      if (rows.length === 0) continue;
      const p = await plan(bytes);
      const after = resumeModel(indexOf({ text: p.after }));
      const left = thinkingOnChain(after.chain);
      const strips = p.applied.filter((a) => a.title === STRIP_THINKING_TITLE).length;
      if (strips > 0) stripped++;
      expect({ file: f.relative, left: left.length < rows.length || strips === 0, valid: after.request().valid || !before.request().valid }).toEqual({ file: f.relative, left: true, valid: true });
      // What is left is the latest response's, kept for the tool results that end the request.
      expect(stripThinkingFinding(indexOf({ text: p.after }), after), f.relative).toBeUndefined();
      // No message lost but the thinking-only rows removed.
      const removed = rows.filter((r) => /^[kKr]+$/.test(r.blocks)).length;
      expect(after.messages.length, f.relative).toBeGreaterThanOrEqual(before.messages.length - removed);
      expect((await plan(p.after)).applied.filter((a) => a.title === STRIP_THINKING_TITLE), f.relative).toEqual([]);
    }
    expect(stripped).toBeGreaterThan(0);
  }, 600_000);
}

describe('--strip-thinking on the bundled corpus', () => sweep(BUNDLED_CORPUS));
describeSharedCorpus('--strip-thinking on the corpus', sweep);

