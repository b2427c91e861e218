/**
 * Differential test of the resume model against the official reader
 * (`getSessionMessages` of the Claude Agent SDK, installed only in this
 * folder by `npm run test:sdk`, never a runtime dependency).
 *
 * On every corpus file and on broken variants of every real main session
 * (one injected corruption of each kind), the model's message list must be
 * exactly the reader's for at least 95% of the files, and its count within
 * 2% on the rest: the bar issue #4 sets for `resume.loaded`. It runs on the
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
import { planFile } from '../../src/repair/plan.js';
import { RULES } from '../../src/rules/index.js';
import { CORRUPTION_KINDS, inject, REPAIRABLE_KINDS } from '../support/corrupt.js';
import { type Corpus, BUNDLED_CORPUS, corpusFiles, describeSharedCorpus, indexText, realMainSessions } from '../support/corpus.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const reader = path.join(here, 'read.mjs');

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

  it('loads the whole conversation again after fix --unsafe, by the official reader itself', async () => {
    const lint = { rules: RULES, severities: new Map() };
    const session = classifyPath('/projects/-home-u-proj/0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl', '/');
    const fixed: Array<{ file: string; intended: string[] }> = [];
    for (const f of mains) {
      const original = fs.readFileSync(f.absolute, 'utf8');
      for (const kind of REPAIRABLE_KINDS) {
        const injected = inject(original, kind, f.relative);
        if (injected === undefined) continue;
        const plan = await planFile(session, Buffer.from(injected.text), lint, { allow: new Set(['safe', 'unsafe']) });
        const file = path.join(tmp, `fixed-${fixed.length}-${kind}.jsonl`);
        fs.writeFileSync(file, plan.after);
        fixed.push({ file, intended: modelMessages(f.absolute) });
      }
    }
    const truth = oracle(fixed.map((x) => x.file));
    let restored = 0;
    let share = 0;
    for (const { file, intended } of fixed) {
      const loaded = truth.get(file);
      expect(Array.isArray(loaded), `${file}: ${String(loaded)}`).toBe(true);
      const got = new Set(loaded as string[]);
      share += intended.length === 0 ? 1 : intended.filter((u) => got.has(u)).length / intended.length;
      if (JSON.stringify(loaded) === JSON.stringify(intended)) restored++;
    }
    expect(fixed.length).toBeGreaterThan(mains.length * 3);
    expect(share / fixed.length).toBeGreaterThanOrEqual(0.99);
    expect(restored / fixed.length).toBeGreaterThanOrEqual(0.95);
  });

  it('agrees on broken variants of every real main session', () => {
    const variants: string[] = [];
    for (const f of mains) {
      const original = fs.readFileSync(f.absolute, 'utf8');
      for (const kind of CORRUPTION_KINDS) {
        const injected = inject(original, kind, f.relative);
        if (injected === undefined) continue;
        const file = path.join(tmp, `${variants.length}-${kind}.jsonl`);
        fs.writeFileSync(file, injected.text);
        variants.push(file);
      }
    }
    expect(variants.length).toBeGreaterThan(mains.length * 5);
    const result = compare(variants, (f) => path.basename(f));
    expect(result.exact / variants.length, result.far.join('\n')).toBeGreaterThanOrEqual(0.95);
    expect(result.far).toEqual([]);
  });
}

describe('resume model vs the official reader (bundled corpus)', () => agreesWithTheReader(BUNDLED_CORPUS));
describeSharedCorpus('resume model vs the official reader', agreesWithTheReader);
