/**
 * The whole shared corpus through the whole linter: nothing crashes, and no
 * real, unaltered transcript gets an error-level finding (legitimate shapes
 * from every Claude Code era must pass).
 */
import { describe, expect, it } from 'vitest';
import { discover } from '../../src/core/discovery.js';
import { lintGroup, ProjectRegistry } from '../../src/engine/linter.js';
import type { FileResult } from '../../src/core/types.js';
import { RULES } from '../../src/rules/index.js';
import { CORPUS, corpusFiles, isRealUnaltered } from '../support/corpus.js';

describe('corpus sweep', () => {
  const files = corpusFiles();
  const discovery = discover([CORPUS], CORPUS);
  const registry = new ProjectRegistry(discovery.projectFiles);
  const results = new Map<string, FileResult>();
  for (const group of discovery.groups) {
    const outcome = lintGroup(group, { rules: RULES, severities: new Map() }, registry);
    expect(outcome.failures).toEqual([]);
    for (const r of outcome.results) results.set(r.filePath, r);
  }

  it('reads every file SOURCES.md lists', () => {
    expect(files.length).toBe(179);
    expect(discovery.problems).toEqual([]);
    for (const f of files) expect(results.has(f.relative), f.relative).toBe(true);
  });

  it('finds no error on any real, unaltered transcript', () => {
    const real = files.filter((f) => isRealUnaltered(f.kind));
    expect(real.length).toBe(130);
    const errors = real.flatMap((f) =>
      (results.get(f.relative)?.findings ?? [])
        .filter((x) => x.severity === 'error')
        .map((x) => `${f.relative}:${x.line} ${x.ruleId} ${x.message}`),
    );
    expect(errors).toEqual([]);
  });

  it('calls no corpus file "not a transcript" but the two hand-written usage-only fixtures', () => {
    const flagged = [...results.values()].filter((r) => r.findings.some((f) => f.ruleId === 'not-a-transcript')).map((r) => r.filePath);
    expect(flagged.sort()).toEqual([
      'ccusage/projects/project-alpha/session-alpha/chat.jsonl',
      'ccusage/projects/project-beta/session-beta/chat.jsonl',
    ]);
    for (const f of flagged) expect(isRealUnaltered(files.find((x) => x.relative === f)?.kind ?? 'real')).toBe(false);
  });

  it('does flag the hand-written broken fixtures', () => {
    const rulesIn = (name: string) => new Set(results.get(name)?.findings.map((f) => f.ruleId));
    expect(rulesIn('cchat/edge_cases.jsonl').has('invalid-json')).toBe(true);
    expect(rulesIn('claude-code-log/edge_cases.jsonl').has('duplicate-uuid')).toBe(true);
    expect(rulesIn('claude-code-log/edge_cases.jsonl').has('orphan-root')).toBe(true);
  });
});
