/**
 * Differential test of the resume model against the official reader
 * (`getSessionMessages` of the Claude Agent SDK, installed only in this
 * folder by `npm run test:sdk`, never a runtime dependency).
 *
 * On every corpus file and on broken variants of every real main session
 * (one break of each kind of test/support/breaks.ts), the model's message
 * list (`resume.sdk`) must be exactly the reader's for at least 95% of the
 * corpus files and 99% of the broken ones, and within 2% on the rest; and
 * after `fix --unsafe` the reader must load the intended conversation again.
 * It runs on the
 * bundled corpus, and on the shared one when it sits beside the repository.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { resumeModel } from '../../src/core/resume.js';
import { planBytes } from '../helpers/plan-bytes.js';
import { RULES } from '../../src/rules/index.js';
import { BREAK_KINDS, injectBreak } from '../support/breaks.js';
import { type Corpus, BUNDLED_CORPUS, corpusFiles, describeSharedCorpus, indexText, realMainSessions } from '../support/corpus.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const reader = path.join(here, 'read.mjs');

interface ReaderAnswer {
  readonly messages: string[];
  /** Each message's type and a hash of its content. */
  readonly fps: string[];
}

function oracleWithContent(files: readonly string[]): Map<string, ReaderAnswer | string> {
  const out = new Map<string, ReaderAnswer | string>();
  for (let i = 0; i < files.length; i += 200) {
    const batch = files.slice(i, i + 200);
    const stdout = execFileSync(process.execPath, [reader, ...batch], {
      cwd: here,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '' },
    });
    for (const line of stdout.trim().split('\n')) {
      const r = JSON.parse(line) as { file: string; messages?: string[]; fps?: string[]; error?: string };
      out.set(r.file, r.messages !== undefined && r.fps !== undefined ? { messages: r.messages, fps: r.fps } : `error: ${r.error ?? '?'}`);
    }
  }
  return out;
}

/** How many of `want` (a multiset) `got` holds, and what `got` holds beyond it. */
function overlap(want: readonly string[], got: readonly string[]): { kept: number; extra: number } {
  const have = new Map<string, number>();
  for (const g of got) have.set(g, (have.get(g) ?? 0) + 1);
  let kept = 0;
  for (const w of want) {
    const n = have.get(w) ?? 0;
    if (n > 0) {
      kept++;
      have.set(w, n - 1);
    }
  }
  return { kept, extra: got.length - kept };
}

function oracle(files: readonly string[]): Map<string, string[] | string> {
  const out = new Map<string, string[] | string>();
  for (let i = 0; i < files.length; i += 200) {
    const batch = files.slice(i, i + 200);
    const stdout = execFileSync(process.execPath, [reader, ...batch], {
      cwd: here,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '' },
    });
    for (const line of stdout.trim().split('\n')) {
      const r = JSON.parse(line) as { file: string; messages?: string[]; error?: string };
      out.set(r.file, r.messages ?? `error: ${r.error ?? '?'}`);
    }
  }
  return out;
}

function modelMessages(file: string): string[] {
  return resumeModel(indexText(fs.readFileSync(file))).sdkMessages.map((m) => m.uuid as string);
}

interface Comparison {
  readonly exact: number;
  readonly near: number;
  readonly far: string[];
}

function compare(files: readonly string[], label: (f: string) => string): Comparison {
  const truth = oracle(files);
  let exact = 0;
  let near = 0;
  const far: string[] = [];
  for (const f of files) {
    const want = truth.get(f);
    if (typeof want === 'string' || want === undefined) {
      far.push(`${label(f)}: reader failed (${String(want)})`);
      continue;
    }
    const got = modelMessages(f);
    if (JSON.stringify(got) === JSON.stringify(want)) exact++;
    else if (Math.abs(got.length - want.length) <= 0.02 * Math.max(1, want.length)) near++;
    else far.push(`${label(f)}: reader ${want.length}, model ${got.length}`);
  }
  return { exact, near, far };
}

it('the reader is installed for the test (npm run test:sdk installs it)', () => {
  expect(fs.existsSync(path.join(here, 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'package.json'))).toBe(true);
});

function agreesWithTheReader(corpus: Corpus): void {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-diff-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const mains = realMainSessions(corpus);

  it('agrees on the corpus', () => {
    const files = corpusFiles(corpus);
    const result = compare(
      files.map((f) => f.absolute),
      (f) => path.relative(corpus.root, f),
    );
    expect(result.exact / files.length, result.far.join('\n')).toBeGreaterThanOrEqual(0.95);
    // Known gap, named rather than hidden: the reader turns queued-command
    // attachments into user messages, which the model does not do yet. Only
    // this hand-written fixture (modelled on 2.1.220 shapes) has them.
    expect(result.far).toEqual([]);
  });

  it('loads the intended conversation again after fix --unsafe, by the official reader itself', async () => {
    // Judged by the SDK's reader: every kind of break of test/support/breaks.ts,
    // fixed in-process with safe and unsafe fixes; the intended conversation
    // is what the reader returns for the file a perfect repair would leave,
    // compared by content (a fix may give a row a new uuid).
    const lint = { rules: RULES, severities: new Map() };
    const cases: Array<{ kind: string; label: string; broken: string; fixed: string; baseline: string }> = [];
    for (const f of mains) {
      const original = fs.readFileSync(f.absolute, 'utf8');
      for (const kind of BREAK_KINDS) {
        const variant = injectBreak(original, kind, f.relative);
        if (variant === undefined) continue;
        const stem = path.basename(f.absolute);
        const session = classifyPath(`/projects/-home-u-proj/${stem}`, '/');
        const plan = await planBytes(session, Buffer.from(variant.text), lint, { allow: new Set(['safe', 'unsafe']) });
        const at = (name: string, text: string | Buffer): string => {
          const file = path.join(tmp, `fix-${cases.length}-${name}.jsonl`);
          fs.writeFileSync(file, text);
          return file;
        };
        cases.push({ kind, label: `${kind} ${f.relative}`, broken: at('broken', variant.text), fixed: at('fixed', plan.after), baseline: at('baseline', variant.baseline) });
      }
    }
    const truth = oracleWithContent(cases.flatMap((c) => [c.broken, c.fixed, c.baseline]));
    const answer = (file: string): ReaderAnswer => {
      const a = truth.get(file);
      if (a === undefined || typeof a === 'string') throw new Error(`${file}: ${String(a)}`);
      return a;
    };
    let n = 0;
    let share = 0;
    let full = 0;
    const worse: string[] = [];
    const partial: string[] = [];
    const healthyChanged: string[] = [];
    for (const c of cases) {
      const intended = answer(c.baseline).fps;
      const before = overlap(intended, answer(c.broken).fps);
      const after = overlap(intended, answer(c.fixed).fps);
      if (c.kind === 'healthy-rewind' || c.kind === 'healthy-rewind-late') {
        if (JSON.stringify(answer(c.fixed).fps) !== JSON.stringify(answer(c.broken).fps)) healthyChanged.push(c.label);
      }
      if (intended.length === 0) continue;
      n++;
      share += after.kept / intended.length;
      if (after.kept === intended.length && after.extra === 0) full++;
      else partial.push(`${c.label}: ${after.kept}/${intended.length}, ${after.extra} extra (before ${before.kept}, ${before.extra} extra)`);
      if (after.kept < before.kept) worse.push(`${c.label}: ${before.kept} → ${after.kept} of ${intended.length}`);
    }
    // The figures, for the README (gitignored).
    fs.mkdirSync(path.join(here, '.cache'), { recursive: true });
    fs.writeFileSync(
      path.join(here, '.cache', `fix-${corpus.label.replace(/\W+/g, '-')}.md`),
      `${n} files: ${((100 * share) / n).toFixed(2)}% of intended messages loaded after the fix, ${full} (${((100 * full) / n).toFixed(1)}%) fully restored, ${worse.length} worse, ${healthyChanged.length} healthy changed\n`,
    );
    expect(n).toBeGreaterThan(mains.length * 10);
    expect(worse).toEqual([]);
    expect(healthyChanged).toEqual([]);
    expect(share / n, partial.join('\n')).toBeGreaterThanOrEqual(0.99);
    expect(full / n, partial.join('\n')).toBeGreaterThanOrEqual(0.95);
  });

  it('agrees on broken variants of every real main session', () => {
    const variants: string[] = [];
    for (const f of mains) {
      const original = fs.readFileSync(f.absolute, 'utf8');
      for (const kind of BREAK_KINDS) {
        const variant = injectBreak(original, kind, f.relative);
        if (variant === undefined) continue;
        const file = path.join(tmp, `${variants.length}-${kind}.jsonl`);
        fs.writeFileSync(file, variant.text);
        variants.push(file);
      }
    }
    expect(variants.length).toBeGreaterThan(mains.length * 10);
    const result = compare(variants, (f) => path.basename(f));
    // resume.sdk equals the reader on at least 99% of broken files.
    expect(result.exact / variants.length, result.far.join('\n')).toBeGreaterThanOrEqual(0.99);
    expect(result.far).toEqual([]);
  });
}

describe('resume model vs the official reader (bundled corpus)', () => agreesWithTheReader(BUNDLED_CORPUS));
describeSharedCorpus('resume model vs the official reader', agreesWithTheReader);
