/**
 * Small random sessions mixing the shapes the loader treats specially
 * (duplicated and reused uuids, broken and null parents, cycles, progress
 * rows, compactions, shared message ids, calls answered nowhere, API-error
 * and thinking-only rows, checkpoints, sidechains, queued commands): every
 * one is read, modelled and linted without throwing, its figures keep their
 * invariants, and its fix plan is a fixed point (planned again, nothing
 * more applies). Two fuzzing rounds against the real CLI and the Agent SDK
 * ran files like these by the thousand (what they found is pinned by its
 * own cases: test/support/cli-cases.ts, and the stack overflow of a reused
 * uuid hanging a prompt below its own previous row in
 * repair-targets.test.ts); this keeps later changes on the same ground,
 * deterministically (fixed seeds), in about a second.
 */
import { describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { resumeModel } from '../../src/core/resume.js';
import { lintIndex } from '../../src/engine/linter.js';
import { RULES } from '../../src/rules/index.js';
import { planBytes } from '../helpers/plan-bytes.js';
import { indexText } from '../support/corpus.js';
import { prng } from '../support/tree.js';

type Row = Record<string, unknown>;

const lint = { rules: RULES, severities: new Map() };
const file = classifyPath('/projects/-home-u-proj/0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl', '/');

/** One random session of 5 to 30 rows, every text distinct. */
function randomSession(seed: number): string {
  const random = prng(seed);
  const below = (n: number): number => Math.floor(random() * n);
  const chance = (p: number): boolean => random() < p;
  const pick = <T>(items: readonly T[]): T => items[below(items.length)] as T;
  let serial = 0;
  const uuid = (): string => `00000000-0000-4000-8000-${(seed * 1000 + ++serial).toString(16).padStart(12, '0')}`;
  const said = (what: string): string => `${what} ${seed}-${serial++}`;
  let clock = Date.UTC(2026, 0, 1, 10);
  const row = (type: string, parentUuid: string | null, extra: Row): Row => ({
    parentUuid,
    isSidechain: false,
    type,
    uuid: uuid(),
    timestamp: new Date((clock += chance(0.2) ? 0 : 1000 + below(4000))).toISOString(),
    sessionId: 's',
    ...extra,
  });
  const assistant = (parent: string | null, content: unknown[], messageId = `msg_${uuid().slice(-6)}`, extra: Row = {}): Row =>
    row('assistant', parent, { message: { id: messageId, role: 'assistant', model: 'claude-x', content }, ...extra });
  const rows: Row[] = [];
  const add = (r: Row): string => {
    rows.push(r);
    return r.uuid as string;
  };
  let tip = add(row('user', null, { message: { role: 'user', content: said('prompt') } }));
  const size = 5 + below(26);
  while (rows.length < size) {
    const op = below(12);
    if (op < 3) {
      const u = add(row('user', tip, { message: { role: 'user', content: said('prompt') } }));
      tip = add(assistant(u, [{ type: 'text', text: said('answer') }]));
    } else if (op < 6) {
      // One response over several rows: thinking, calls, their results (the last maybe never answered).
      const id = `msg_r${serial}`;
      let parent = tip;
      if (chance(0.4)) parent = add(assistant(parent, [{ type: 'thinking', thinking: said('think'), signature: `sig${serial}` }], id));
      const calls: string[] = [];
      for (let k = 1 + below(3); k > 0; k--) {
        const call = `toolu_${seed}_${serial}`;
        calls.push(call);
        parent = add(assistant(parent, [{ type: 'tool_use', id: call, name: 'Bash', input: { command: said('cmd') } }], id));
      }
      const unanswered = chance(0.2) ? calls.length - 1 : calls.length;
      for (let k = 0; k < unanswered; k++) {
        if (chance(0.2)) parent = add(row('progress', parent, { data: { type: 'bash_progress' }, toolUseID: calls[k] }));
        parent = add(row('user', parent, { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: calls[k], content: said('result') }] } }));
      }
      tip = parent;
    } else if (op === 6) {
      const boundary = add(row('system', null, { subtype: 'compact_boundary', content: 'Conversation compacted', logicalParentUuid: tip }));
      tip = add(row('user', boundary, { isCompactSummary: true, message: { role: 'user', content: said('summary') } }));
    } else if (op === 7) {
      tip = add(row('user', tip, { isMeta: true, message: { role: 'user', content: said('<system-reminder>') } }));
    } else if (op === 8) {
      tip = add(assistant(tip, [{ type: 'text', text: said('API Error: 500') }], `msg_e${serial}`, { isApiErrorMessage: true }));
      (rows[rows.length - 1]?.message as Row).model = '<synthetic>';
    } else if (op === 9) {
      rows.push({ type: 'last-prompt', lastPrompt: said('last'), leafUuid: pick(rows.filter((r) => typeof r.uuid === 'string')).uuid, ...(chance(0.3) ? { explicit: true } : {}), sessionId: 's' });
    } else if (op === 10) {
      tip = add(row('attachment', tip, { attachment: { type: 'queued_command', prompt: said('queued') } }));
    } else {
      const from = pick(rows.filter((r) => typeof r.uuid === 'string')).uuid as string;
      const u = add(row('user', from, { message: { role: 'user', content: said('branch') } }));
      tip = add(assistant(u, [{ type: 'text', text: said('branch answer') }]));
    }
  }
  // Breaks: copies, rewrites, reused uuids, lost and null parents, cycles, side rows.
  for (let n = below(5); n > 0; n--) {
    const linked = rows.filter((r) => typeof r.uuid === 'string');
    if (linked.length < 3) break;
    const r = pick(linked.slice(1));
    const at = rows.indexOf(r);
    const op = below(7);
    if (op === 0) rows.splice(at + 1 + below(rows.length - at), 0, { ...r });
    else if (op === 1) rows.splice(at + 1 + below(rows.length - at), 0, { ...r, message: { role: 'user', content: said('rewritten') }, type: 'user' });
    else if (op === 2) r.uuid = pick(linked).uuid;
    else if (op === 3) r.parentUuid = uuid();
    else if (op === 4) r.parentUuid = null;
    else if (op === 5) r.parentUuid = (linked[linked.indexOf(r) + 1] ?? r).uuid;
    else r.isSidechain = true;
  }
  return `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`;
}

describe('random sessions', () => {
  it('are read, modelled and linted without throwing, with loaded <= total and fidelity in [0, 1]', () => {
    const broken: string[] = [];
    for (let seed = 1; seed <= 1000; seed++) {
      const text = randomSession(seed);
      try {
        const index = indexText(text);
        const model = resumeModel(index);
        lintIndex(index, lint);
        if (!(model.loaded <= model.total && model.fidelity >= 0 && model.fidelity <= 1)) broken.push(`seed ${seed}: loaded ${model.loaded}, total ${model.total}`);
      } catch (error) {
        broken.push(`seed ${seed}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('plan to a fixed point: planned again, the fixed text takes no more fixes', async () => {
    const moving: string[] = [];
    for (let seed = 1; seed <= 120; seed++) {
      const policy = { allow: new Set(['safe', 'unsafe'] as const) };
      const once = await planBytes(file, Buffer.from(randomSession(seed)), lint, policy);
      const twice = await planBytes(file, once.after, lint, policy);
      if (!twice.after.equals(once.after)) moving.push(`seed ${seed}: ${twice.applied.map((a) => a.ruleId).join(', ')}`);
    }
    expect(moving).toEqual([]);
  });
});
