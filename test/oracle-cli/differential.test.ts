/**
 * cclint judged by the real `claude -p --resume` (2.1.330): `npm run test:cli`.
 *
 * 1. The resume model: on every corpus file and on broken variants of every
 *    real main session (every kind of test/support/breaks.ts), the rows the
 *    model counts as `resume.loaded` are the rows the CLI sends.
 * 2. The repairs: each variant is fixed in-process with safe and unsafe
 *    fixes (`cclint fix --yes --unsafe`), and the CLI is asked again. The
 *    intended conversation is what the CLI sends for the file a perfect
 *    repair would leave (the file the variant was made from, less what the
 *    break itself destroyed: test/support/breaks.ts); compared as
 *    multisets of the request's blocks (text, tool ids, thinking
 *    signatures), which does not depend on uuids a fix may change. Measured:
 *    the share of intended blocks sent, files fully restored with nothing
 *    extra, files made worse, blocks added that were never intended (an
 *    abandoned attempt, history from before a compaction).
 *
 * The figures are written to `.cache/report.md` here for the README.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { resumeModel } from '../../src/core/resume.js';
import { scoreSession } from '../../src/core/score.js';
import { planBytes } from '../helpers/plan-bytes.js';
import { RULES } from '../../src/rules/index.js';
import { type BreakKind, BREAK_KINDS, injectBreak } from '../support/breaks.js';
import { corpusFiles, indexText, realMainSessions, SHARED_CORPUS } from '../support/corpus.js';
import { askCli, loadedUuids, type OracleAnswer, oracleAvailable, oracleRows, type OracleFileRow } from './oracle.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const available = oracleAvailable();
// The shared corpus (beside the repository, as in CI): 179 files, 59 real main sessions.
const corpusThere = fs.existsSync(path.join(SHARED_CORPUS.root, 'SOURCES.md'));
const lint = { rules: RULES, severities: new Map() };
/** Seeds per kind and session: more variants of the same shapes in other places. */
const SEEDS = Number(process.env.CCLINT_CLI_SEEDS ?? 1);
/**
 * How many of the real main sessions get broken variants (all by default);
 * `CCLINT_CLI_SESSIONS=5` is a quicker run on the first five, in path order.
 */
const SESSIONS = Number(process.env.CCLINT_CLI_SESSIONS ?? Number.POSITIVE_INFINITY);
const mainSessions = () => realMainSessions(SHARED_CORPUS).slice(0, SESSIONS);

interface Case {
  readonly kind: BreakKind | 'corpus';
  readonly label: string;
  readonly file: string;
  readonly baseline: string;
  readonly fixed: string;
}

/** Blocks the CLI writes itself (synthetic results, placeholders) are marked `!`; they are not content. */
function contentFps(answer: OracleAnswer): string[] {
  return answer.ok ? answer.fps.filter((f) => !f.startsWith('!')) : [];
}

function multiset(items: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const x of items) m.set(x, (m.get(x) ?? 0) + 1);
  return m;
}

/** |a ∩ b| and a − b as multisets. */
function compareBlocks(want: readonly string[], got: readonly string[]): { kept: number; extra: string[] } {
  const have = multiset(got);
  let kept = 0;
  for (const f of want) {
    const n = have.get(f) ?? 0;
    if (n > 0) {
      kept++;
      have.set(f, n - 1);
    }
  }
  const wanted = multiset(want);
  const extra: string[] = [];
  for (const f of got) {
    const n = wanted.get(f) ?? 0;
    if (n > 0) wanted.set(f, n - 1);
    else extra.push(f);
  }
  return { kept, extra };
}

function sameRows(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && new Set(a).size === new Set([...a, ...b]).size;
}

/**
 * Rows where the model and the CLI provably disagree: a row whose text no
 * other row of the file holds shows in the request exactly when the CLI
 * loaded it, so the request proves it sent or did not send that row, with
 * none of the oracle's guessing (a text two rows hold is credited to one
 * of them; rows between two credited rows are filled in). Rows without a
 * text of their own (tool calls, thinking) are not judged here.
 */
function provableDifferences(rows: readonly OracleFileRow[], answer: OracleAnswer, modelLines: ReadonlySet<number>): string[] {
  const holders = new Map<string, number>();
  for (const r of rows) for (const f of new Set(r.fps)) holders.set(`${r.type[0]}:${f}`, (holders.get(`${r.type[0]}:${f}`) ?? 0) + 1);
  const sent = new Set(contentFps(answer));
  const out: string[] = [];
  for (const r of rows) {
    if (r.meta || r.side || r.silent) continue;
    const own = r.fps.map((f) => `${r.type[0]}:${f}`).filter((f) => f.startsWith(`${r.type[0]}:tx:`) && holders.get(f) === 1);
    if (own.length === 0) continue;
    const byCli = own.some((f) => sent.has(f));
    if (byCli !== modelLines.has(r.line)) out.push(`line ${r.line} ${byCli ? 'sent by the CLI, not in the model' : 'in the model, not sent by the CLI'}`);
  }
  return out;
}

describe.runIf(available.ok && corpusThere)('cclint against the real claude --resume', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-cli-diff-'));
  // CCLINT_KEEP=1 keeps the variants for a closer look.
  afterAll(() => process.env.CCLINT_KEEP === undefined && fs.rmSync(tmp, { recursive: true, force: true }));
  const cases: Case[] = [];
  let answers = new Map<string, OracleAnswer>();
  const report: string[] = [];
  /** Every file not fully restored, for a closer look (`.cache/partial.txt`). */
  const unrestored: string[] = [];

  beforeAll(async () => {
    for (const f of corpusFiles(SHARED_CORPUS)) {
      cases.push({ kind: 'corpus', label: f.relative, file: f.absolute, baseline: f.absolute, fixed: f.absolute });
    }
    const session = (stem: string) => classifyPath(`/projects/-home-u-proj/${stem}`, '/');
    for (const f of mainSessions()) {
      const text = fs.readFileSync(f.absolute, 'utf8');
      for (const kind of BREAK_KINDS) {
        for (let seed = 0; seed < SEEDS; seed++) {
          const variant = injectBreak(text, kind, seed === 0 ? f.relative : `${f.relative}#${seed}`);
          if (variant === undefined) continue;
          const dir = path.join(tmp, String(cases.length));
          const name = path.basename(f.absolute);
          fs.mkdirSync(path.join(dir, 'base'), { recursive: true });
          fs.mkdirSync(path.join(dir, 'fixed'));
          const file = path.join(dir, name);
          const baseline = path.join(dir, 'base', name);
          const fixed = path.join(dir, 'fixed', name);
          fs.writeFileSync(file, variant.text);
          fs.writeFileSync(baseline, variant.baseline);
          const plan = await planBytes(session(name), Buffer.from(variant.text), lint, { allow: new Set(['safe', 'unsafe']) });
          fs.writeFileSync(fixed, plan.after);
          cases.push({ kind, label: `${kind} ${f.relative}#${seed}`, file, baseline, fixed });
        }
      }
    }
    answers = await askCli([...new Set(cases.flatMap((c) => [c.file, c.baseline, c.fixed]))]);
  });

  afterAll(() => {
    fs.mkdirSync(path.join(here, '.cache'), { recursive: true });
    fs.writeFileSync(path.join(here, '.cache', 'report.md'), `${report.join('\n')}\n`);
    fs.writeFileSync(path.join(here, '.cache', 'partial.txt'), `${unrestored.join('\n')}\n`);
  });

  it('counts the rows the CLI sends, on the corpus and on broken variants', async () => {
    const byKind = new Map<string, { exact: number; near: number; proven: number; n: number; misses: string[]; differences: string[] }>();
    for (const c of cases) {
      const answer = answers.get(c.file) as OracleAnswer;
      const want = loadedUuids(answer);
      const messages = resumeModel(indexText(fs.readFileSync(c.file))).messages;
      const got = messages.map((m) => m.uuid as string);
      const k = byKind.get(c.kind) ?? { exact: 0, near: 0, proven: 0, n: 0, misses: [], differences: [] };
      k.n++;
      if (sameRows(want, got)) k.exact++;
      else {
        if (Math.abs(want.length - got.length) <= 0.02 * Math.max(1, want.length)) k.near++;
        k.misses.push(`${c.label}: CLI ${want.length}, model ${got.length}`);
      }
      const differences = provableDifferences(await oracleRows(c.file), answer, new Set(messages.map((m) => m.line)));
      if (differences.length === 0) k.proven++;
      else k.differences.push(`${c.label}: ${differences.slice(0, 3).join('; ')}`);
      byKind.set(c.kind, k);
    }
    const all = [...byKind.values()];
    const broken = all.filter((_, i) => [...byKind.keys()][i] !== 'corpus');
    const sum = (ks: typeof all, f: (k: (typeof all)[0]) => number) => ks.reduce((n, k) => n + f(k), 0);
    report.push('| files | `resume.loaded` equals the CLI | within 2% | no row with a text of its own differs |', '| --- | --- | --- | --- |');
    for (const [kind, k] of byKind) report.push(`| ${kind} (${k.n}) | ${k.exact} | ${k.exact + k.near} | ${k.proven} |`);
    const corpus = byKind.get('corpus') as (typeof all)[0];
    expect(corpus.exact / corpus.n, corpus.misses.join('\n')).toBeGreaterThanOrEqual(0.95);
    const exact = sum(broken, (k) => k.exact) / sum(broken, (k) => k.n);
    expect(exact, broken.flatMap((k) => k.misses).join('\n')).toBeGreaterThanOrEqual(0.95);
    // Where the request itself shows what was sent, the model and the CLI agree (the oracle's guesses aside).
    expect(corpus.proven / corpus.n, corpus.differences.join('\n')).toBeGreaterThanOrEqual(0.99);
    expect(sum(broken, (k) => k.proven) / sum(broken, (k) => k.n), broken.flatMap((k) => k.differences).join('\n')).toBeGreaterThanOrEqual(0.99);
  });

  it('repairs every kind of break without making any file worse or adding what was never there', () => {
    const byKind = new Map<string, { n: number; share: number; full: number; worse: string[]; extra: string[]; partial: string[] }>();
    for (const c of cases) {
      if (c.kind === 'corpus') continue;
      const intended = contentFps(answers.get(c.baseline) as OracleAnswer);
      if (intended.length === 0) continue;
      const before = compareBlocks(intended, contentFps(answers.get(c.file) as OracleAnswer));
      const after = compareBlocks(intended, contentFps(answers.get(c.fixed) as OracleAnswer));
      const k = byKind.get(c.kind) ?? { n: 0, share: 0, full: 0, worse: [], extra: [], partial: [] };
      k.n++;
      k.share += after.kept / intended.length;
      if (after.kept === intended.length && after.extra.length === 0) k.full++;
      else k.partial.push(`${c.label} ${path.relative(tmp, c.file)}: ${after.kept}/${intended.length} intended blocks sent, ${after.extra.length} extra (before: ${before.kept}, ${before.extra.length} extra)`);
      if (after.kept < before.kept) k.worse.push(`${c.label}: ${before.kept} → ${after.kept} of ${intended.length}`);
      if (after.extra.length > before.extra.length) k.extra.push(`${c.label}: ${after.extra.slice(0, 3).join(' ')}`);
      byKind.set(c.kind, k);
    }
    report.push('', '| break | files | intended blocks sent after fix | fully restored | worse | with blocks never intended |', '| --- | --- | --- | --- | --- | --- |');
    let n = 0;
    let share = 0;
    let full = 0;
    const worse: string[] = [];
    const extra: string[] = [];
    const partial: string[] = [];
    for (const [kind, k] of byKind) {
      report.push(`| ${kind} | ${k.n} | ${((100 * k.share) / k.n).toFixed(1)}% | ${k.full} | ${k.worse.length} | ${k.extra.length} |`);
      n += k.n;
      share += k.share;
      full += k.full;
      worse.push(...k.worse);
      extra.push(...k.extra);
      partial.push(...k.partial);
    }
    unrestored.push(...partial);
    report.push(`| all | ${n} | ${((100 * share) / n).toFixed(2)}% | ${full} (${((100 * full) / n).toFixed(1)}%) | ${worse.length} | ${extra.length} |`);
    expect(worse).toEqual([]);
    expect(extra).toEqual([]);
    expect(share / n, partial.join('\n')).toBeGreaterThanOrEqual(0.995);
    expect(full / n, partial.join('\n')).toBeGreaterThanOrEqual(0.98);
  });

  it('leaves healthy sessions, rewinds included, sent to the model exactly as before', () => {
    const changed: string[] = [];
    for (const c of cases) {
      if (c.kind !== 'healthy-rewind' && c.kind !== 'healthy-rewind-late') continue;
      const before = answers.get(c.file) as OracleAnswer;
      const after = answers.get(c.fixed) as OracleAnswer;
      if (before.seq !== after.seq) changed.push(c.label);
    }
    expect(changed).toEqual([]);
  });

  it('scores the sessions whose resume really loses messages above the healthy ones (ROC AUC >= 0.95)', () => {
    const losing: number[] = [];
    const healthy: number[] = [];
    const scoreOf = (file: string): number => {
      const index = indexText(fs.readFileSync(file));
      return scoreSession(index, resumeModel(index)).score;
    };
    for (const c of cases) {
      if (c.kind === 'corpus') continue;
      if (c.kind === 'healthy-rewind' || c.kind === 'healthy-rewind-late') {
        healthy.push(scoreOf(c.file));
        continue;
      }
      const intended = contentFps(answers.get(c.baseline) as OracleAnswer);
      const now = compareBlocks(intended, contentFps(answers.get(c.file) as OracleAnswer));
      if (now.kept < intended.length) losing.push(scoreOf(c.file));
    }
    for (const f of mainSessions()) healthy.push(scoreOf(f.absolute));
    let wins = 0;
    for (const b of losing) for (const h of healthy) wins += b > h ? 1 : b === h ? 0.5 : 0;
    const auc = wins / (losing.length * healthy.length);
    report.push('', `Score: ROC AUC ${auc.toFixed(3)} between ${losing.length} broken files whose CLI resume loses messages and ${healthy.length} healthy ones.`);
    expect(losing.length).toBeGreaterThan(50);
    expect(auc).toBeGreaterThanOrEqual(0.95);
  });

  it('predicts what the CLI sends after the fix too', async () => {
    let exact = 0;
    let proven = 0;
    let n = 0;
    const misses: string[] = [];
    const differences: string[] = [];
    for (const c of cases) {
      if (c.kind === 'corpus') continue;
      n++;
      const answer = answers.get(c.fixed) as OracleAnswer;
      const want = loadedUuids(answer);
      const messages = resumeModel(indexText(fs.readFileSync(c.fixed))).messages;
      const got = messages.map((m) => m.uuid as string);
      if (sameRows(want, got)) exact++;
      else misses.push(`${c.label}: CLI ${want.length}, model ${got.length}`);
      const provable = provableDifferences(await oracleRows(c.fixed), answer, new Set(messages.map((m) => m.line)));
      if (provable.length === 0) proven++;
      else differences.push(`${c.label}: ${provable.slice(0, 3).join('; ')}`);
    }
    expect(proven / n, differences.join('\n')).toBeGreaterThanOrEqual(0.99);
    report.push('', `After the fix, \`resume.loaded\` equals the CLI on ${exact} of ${n} files, and no row with a text of its own differs on ${proven}.`);
    expect(exact / n, misses.join('\n')).toBeGreaterThanOrEqual(0.95);
  });
});

if (!(available.ok && corpusThere)) {
  describe('cclint against the real claude --resume', () => {
    it.skip(`needs the CLI oracle and ../shared/corpus: ${available.ok ? 'no corpus' : available.why}`, () => undefined);
  });
}
