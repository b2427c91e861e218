import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileResult } from '../../src/core/types.js';
import { artifactLocationOf, pascalCase, sarif, sarifLog } from '../../src/formatters/sarif.js';
import { RULES } from '../../src/rules/index.js';
import { SESSION, UUID_A, UUID_B, context, fileResult, finding, sample } from './results.js';

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const run = (results: readonly FileResult[], ctx = context()) => sarifLog(results, ctx).runs[0]!;
const fingerprints = (results: readonly FileResult[]) =>
  run(results).results.map((r) => r.partialFingerprints['cclint/v1']);

describe('sarif', () => {
  it('writes a SARIF 2.1.0 log with one run and the driver metadata', () => {
    const log = JSON.parse(sarif(sample(), context())) as Record<string, unknown>;
    expect(Object.keys(log)).toEqual(['$schema', 'version', 'runs']);
    expect(log.$schema).toBe('https://json.schemastore.org/sarif-2.1.0.json');
    expect(log.version).toBe('2.1.0');
    expect(log.runs).toHaveLength(1);
    const driver = run(sample()).tool.driver;
    expect(driver.name).toBe('cclint');
    expect(driver.version).toBe('9.9.9');
    expect(driver.informationUri).toBeUndefined();
    expect(driver.rules).toEqual([
      { id: 'phantom-parent', name: 'PhantomParent', shortDescription: { text: 'Parents exist' }, defaultConfiguration: { level: 'error' } },
      { id: 'dangling-tool-use', name: 'DanglingToolUse', shortDescription: { text: 'Tool uses get results' }, defaultConfiguration: { level: 'warning' } },
      { id: 'string-content', name: 'StringContent', shortDescription: { text: 'Content is blocks' }, defaultConfiguration: { level: 'note' } },
    ]);
  });

  it('links each rule to its documentation page and embeds the page, when the context gives them', () => {
    const ruleHelp = new Map([['phantom-parent', { uri: 'https://example.org/docs/rules/phantom-parent.md', markdown: '# phantom-parent\n' }]]);
    const driver = run(sample(), context({ ruleHelp, informationUri: 'https://example.org' })).tool.driver;
    expect(driver.informationUri).toBe('https://example.org');
    expect(driver.rules[0]).toEqual({
      id: 'phantom-parent',
      name: 'PhantomParent',
      shortDescription: { text: 'Parents exist' },
      helpUri: 'https://example.org/docs/rules/phantom-parent.md',
      help: { text: '# phantom-parent\n', markdown: '# phantom-parent\n' },
      defaultConfiguration: { level: 'error' },
    });
    expect(driver.rules[1]?.helpUri).toBeUndefined();
  });

  it('describes every registry rule, in registry order', () => {
    const rulesMeta = new Map(RULES.map((r) => [r.meta.id, r.meta]));
    const rules = run([], context({ rulesMeta })).tool.driver.rules;
    expect(rules.map((r) => r.id)).toEqual(RULES.map((r) => r.meta.id));
    expect(rules.map((r) => r.shortDescription.text)).toEqual(RULES.map((r) => r.meta.description));
    const stringContent = rules.find((r) => r.id === 'string-content');
    expect(stringContent?.name).toBe('StringContent');
    expect(stringContent?.defaultConfiguration).toEqual({ level: 'note' });
    expect(rules.every((r) => /^[A-Z][A-Za-z0-9]*$/u.test(r.name))).toBe(true);
  });

  it('maps each finding to a result with location, logical location and fingerprint', () => {
    const results = run(sample()).results;
    expect(results.map((r) => [r.ruleId, r.ruleIndex, r.level])).toEqual([
      ['string-content', 2, 'note'],
      ['phantom-parent', 0, 'error'],
      ['dangling-tool-use', 1, 'warning'],
    ]);
    expect(results[1]).toEqual({
      ruleId: 'phantom-parent',
      ruleIndex: 0,
      level: 'error',
      message: { text: 'parentUuid 9f3e… does not match any record.' },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: 'projects/a.jsonl', uriBaseId: '%SRCROOT%' },
            region: { startLine: 42 },
          },
          logicalLocations: [{ name: UUID_A, kind: 'object', fullyQualifiedName: `${SESSION}/${UUID_A}` }],
        },
      ],
      partialFingerprints: { 'cclint/v1': sha256(`phantom-parent\0${SESSION}\0${UUID_A}\0missingParent`) },
    });
    // No uuid: the logical location is the session, the fingerprint falls back to the line.
    expect(results[0]!.locations[0]!.logicalLocations).toEqual([
      { name: SESSION, kind: 'object', fullyQualifiedName: SESSION },
    ]);
    expect(results[0]!.partialFingerprints['cclint/v1']).toBe(sha256(`string-content\0${SESSION}\0line:7\0stringContent`));
  });

  it('keeps a fingerprint when only the line moves, and changes it with the uuid', () => {
    const at = (line: number, uuid: string) => [fileResult('a.jsonl', [finding({ ruleId: 'phantom-parent', line, uuid })])];
    const [base] = fingerprints(at(10, UUID_A));
    expect(fingerprints(at(99, UUID_A))).toEqual([base]);
    expect(fingerprints(at(10, UUID_B))[0]).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/u);
    // Without a uuid the line is all there is.
    const lineOnly = (line: number) => fingerprints([fileResult('a.jsonl', [finding({ ruleId: 'invalid-json', line })])])[0];
    expect(lineOnly(3)).not.toBe(lineOnly(4));
  });

  it('changes the fingerprint with the rule, the session and the messageId', () => {
    const one = (overrides: Partial<Parameters<typeof finding>[0]>, sessionId: string | null = SESSION) =>
      fingerprints([
        fileResult('a.jsonl', [finding({ ruleId: 'phantom-parent', line: 1, uuid: UUID_A, ...overrides })], {
          sessionId: sessionId ?? undefined,
        }),
      ])[0];
    const base = one({});
    expect(one({ ruleId: 'orphan-root' })).not.toBe(base);
    expect(one({ messageId: 'other' })).not.toBe(base);
    expect(one({}, 'another-session')).not.toBe(base);
    expect(base).toBe(sha256(`phantom-parent\0${SESSION}\0${UUID_A}\0someMessage`));
    expect(one({}, null)).toBe(sha256(`phantom-parent\0file:a.jsonl\0${UUID_A}\0someMessage`));
  });

  it('gives repeated findings on one uuid distinct fingerprints', () => {
    const copy = (line: number) => finding({ ruleId: 'duplicate-uuid', messageId: 'identical', line, uuid: UUID_A });
    const prints = fingerprints([fileResult('a.jsonl', [copy(5), copy(9)])]);
    expect(prints[0]).toBe(sha256(`duplicate-uuid\0${SESSION}\0${UUID_A}\0identical`));
    expect(prints[1]).toBe(sha256(`duplicate-uuid\0${SESSION}\0${UUID_A}\0identical\0#1`));
  });

  it('never writes primaryLocationLineHash', () => {
    expect(sarif(sample(), context())).not.toContain('primaryLocationLineHash');
  });

  it('always writes results: [] for a clean run', () => {
    const clean = sarif([fileResult('a.jsonl', [])], context());
    expect(clean).toContain('"results": []');
    expect(run([]).results).toEqual([]);
    expect((JSON.parse(clean) as { runs: Array<{ results: unknown }> }).runs[0]!.results).toEqual([]);
  });

  it('anchors paths at %SRCROOT%, the cwd as a file URL with a trailing slash', () => {
    expect(run([]).originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: 'file:///home/me/repo/' } });
    expect(run([], context({ cwd: '/' })).originalUriBaseIds).toEqual({ '%SRCROOT%': { uri: 'file:///' } });
    expect(artifactLocationOf('/home/me/repo/p/x y.jsonl', '/home/me/repo')).toEqual({
      uri: 'p/x%20y.jsonl',
      uriBaseId: '%SRCROOT%',
    });
    expect(artifactLocationOf('p/q/s.jsonl', '/home/me/repo')).toEqual({ uri: 'p/q/s.jsonl', uriBaseId: '%SRCROOT%' });
    // Outside the cwd a relative uri would need `..`; an absolute file URL is unambiguous.
    expect(artifactLocationOf('/home/me/.claude/projects/s.jsonl', '/home/me/repo')).toEqual({
      uri: 'file:///home/me/.claude/projects/s.jsonl',
    });
  });

  it('carries per-file resume and score in the run properties', () => {
    expect(run(sample()).properties).toEqual({
      files: [
        { uri: 'projects/a.jsonl', sessionId: SESSION, resume: { loaded: 12, total: 1701, fidelity: 0.007, sdk: 12 }, score: 0.934 },
        { uri: 'projects/b.jsonl', sessionId: SESSION, resume: { loaded: 3, total: 3, fidelity: 1, sdk: 3 }, score: 0 },
      ],
    });
    expect(run([fileResult('a.jsonl', [])]).properties).toBeUndefined();
  });

  it('still gives a valid ruleIndex for a rule missing from the metadata', () => {
    const r = run([fileResult('a.jsonl', [finding({ ruleId: 'mystery-rule', line: 1 })])]);
    expect(r.results[0]!.ruleIndex).toBe(3);
    expect(r.tool.driver.rules[3]).toEqual({ id: 'mystery-rule', name: 'MysteryRule', shortDescription: { text: 'mystery-rule' } });
  });

  it('derives PascalCase names', () => {
    expect(pascalCase('phantom-parent')).toBe('PhantomParent');
    expect(pascalCase('invalid-json')).toBe('InvalidJson');
    expect(pascalCase('x')).toBe('X');
  });

  it('is pretty-printed with a final newline and no colour', () => {
    const out = sarif(sample(), context({ color: true }));
    expect(out.startsWith('{\n  "$schema": ')).toBe(true);
    expect(out.endsWith('}\n')).toBe(true);
    expect(out).not.toContain('\u001b');
  });
});
