/**
 * A RuleTester in the ESLint mould (style.md §4.9) on top of vitest.
 *
 * `ruleTester(rule, { valid, invalid })` registers one `describe` per rule
 * and one `it` per case. Each case is linted on its own: the records (or
 * raw text) become an in-memory file, the file and any `others` of the same
 * session group are indexed and linked exactly as `lintGroup` does, and only
 * the rule under test runs, through the real engine (`lintIndex`), so the
 * engine's own checks (known messageId, line inside the file, fix
 * applicability within `meta.fixable`) apply too.
 *
 * - valid: the rule reports nothing.
 * - invalid: the findings equal `errors` exactly: same count and order, and
 *   for each the same `messageId`, `line`, `uuid` (when given) and severity
 *   (when omitted, the rule's own `meta.severity` is expected). For a rule
 *   that declares `meta.fixable` every expected error must say `fix:
 *   { applicability }` or `fix: null`; an offered fix's edits are computed
 *   and checked (lines in range, `before` equal to the line, replacement
 *   lines that are JSON objects).
 * - the rule must not throw, and cases must not repeat (a duplicate fails
 *   with the indices of both).
 */
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { classifyPath } from '../../src/core/discovery.js';
import { linkGroup, lintIndex } from '../../src/engine/linter.js';
import { bufferSource } from '../../src/core/reader.js';
import { type FileRole, type SessionFile, SessionIndex } from '../../src/core/session-index.js';
import type { Applicability, Finding, JsonObject, Severity } from '../../src/core/types.js';
import type { Rule } from '../../src/rules/rule.js';
import { PROJECT_FOLDER, SESSION_ID, jsonl, uuidOf } from './records.js';

/** Where test files pretend to live. */
export const PROJECTS_ROOT = '/home/u/.claude/projects';

export interface FileSpec {
  /** Builder output, one record per line. */
  readonly records?: readonly JsonObject[] | undefined;
  /** Raw file contents, for byte-level cases (NUL, CRLF, BOM, torn tails). */
  readonly text?: string | Buffer | undefined;
  /** Default `main`. */
  readonly role?: FileRole | undefined;
  /** Default `-home-u-proj`. */
  readonly projectFolderName?: string | undefined;
  /** Absolute path; when given, role and folder follow from it unless also given. */
  readonly path?: string | undefined;
}

export interface CaseBase extends FileSpec {
  readonly name?: string | undefined;
  /** Other files of the same session group (e.g. the main session of a subagent file). */
  readonly others?: readonly FileSpec[] | undefined;
}

export type ValidCase = CaseBase;

export interface ExpectedError {
  readonly messageId: string;
  readonly line: number;
  /** Short id or full uuid of the record the finding names. */
  readonly uuid?: string | undefined;
  /** Defaults to the rule's `meta.severity`. */
  readonly severity?: Severity | undefined;
  /** The message as shown, exactly (a string) or matching (a pattern), when the case is about its wording. */
  readonly message?: string | RegExp | undefined;
  /** Required for fixable rules: the fix's applicability, or `null` for none. */
  readonly fix?: { readonly applicability: Applicability } | null | undefined;
}

export interface InvalidCase extends CaseBase {
  readonly errors: readonly ExpectedError[];
}

export interface RuleTests {
  readonly valid: readonly ValidCase[];
  readonly invalid: readonly InvalidCase[];
}

function defaultPath(role: FileRole, folder: string, n: number): string {
  const dir = path.posix.join(PROJECTS_ROOT, folder);
  switch (role) {
    case 'main':
      return path.posix.join(dir, `${n === 0 ? SESSION_ID : uuidOf(`session-${n}`)}.jsonl`);
    case 'subagent':
      return path.posix.join(dir, SESSION_ID, 'subagents', `agent-a${n}0c1d2e3f4a5b6c7.jsonl`);
    case 'legacy-agent':
      return path.posix.join(dir, `agent-a${n}0c1d2e3.jsonl`);
    case 'other':
      return path.posix.join(dir, `notes-${n}.jsonl`);
  }
}

/** The SessionFile a spec stands for, shaped by the same code discovery uses. */
export function sessionFileOf(spec: FileSpec, n = 0): SessionFile {
  const role = spec.role ?? 'main';
  const folder = spec.projectFolderName ?? PROJECT_FOLDER;
  const file = classifyPath(spec.path ?? defaultPath(role, folder, n), '/');
  return {
    ...file,
    role: spec.role ?? file.role,
    projectFolderName: spec.projectFolderName ?? file.projectFolderName,
  };
}

export function bytesOf(spec: FileSpec): Buffer {
  if (spec.text !== undefined && spec.records !== undefined) throw new Error('give records or text, not both');
  if (spec.text !== undefined) return Buffer.isBuffer(spec.text) ? spec.text : Buffer.from(spec.text, 'utf8');
  return Buffer.from(jsonl(spec.records ?? []), 'utf8');
}

export function indexOf(spec: FileSpec, n = 0): SessionIndex {
  const bytes = bytesOf(spec);
  return SessionIndex.build(sessionFileOf(spec, n), () => bufferSource(bytes));
}

/**
 * Freezes what the index built eagerly and never changes afterwards (the
 * record summaries and the invalid-line table), so a rule that writes to
 * them throws. The index's lazy caches stay writable.
 */
function freezeSummaries(index: SessionIndex): void {
  for (const r of index.records) {
    Object.freeze(r.toolUseIds);
    Object.freeze(r.toolResultIds);
    Object.freeze(r);
  }
  Object.freeze(index.records);
  for (const l of index.invalidLines) Object.freeze(l);
  Object.freeze(index.invalidLines);
}

/** Indexes a case and its group, links them, and lints the case's file with `rules`. */
export function lintCase(rules: readonly Rule[], c: CaseBase): { index: SessionIndex; findings: Finding[] } {
  const index = indexOf(c, 0);
  freezeSummaries(index);
  const others = (c.others ?? []).map((o, i) => indexOf(o, i + 1));
  linkGroup([index, ...others], undefined);
  const findings = lintIndex(index, { rules, severities: new Map() });
  return { index, findings };
}

/**
 * A key for duplicate detection. Builder timestamps depend on how many
 * records were built before, so they are compared relative to the case's
 * first timestamp: two cases that differ only in where the clock stood are
 * the same case.
 */
function caseKey(c: CaseBase): string {
  const files = [c, ...(c.others ?? [])].map((f) => {
    let content: unknown;
    if (f.text !== undefined) content = Buffer.isBuffer(f.text) ? f.text.toString('base64') : f.text;
    else {
      const times = (f.records ?? []).map((r) => (typeof r.timestamp === 'string' ? Date.parse(r.timestamp) : Number.NaN));
      const base = times.find((t) => !Number.isNaN(t)) ?? 0;
      content = (f.records ?? []).map((r, i) => {
        const t = times[i] as number;
        return Number.isNaN(t) ? r : { ...r, timestamp: `+${t - base}` };
      });
    }
    return { content, role: f.role, folder: f.projectFolderName, path: f.path };
  });
  return JSON.stringify(files);
}

function label(kind: 'valid' | 'invalid', i: number, c: CaseBase): string {
  const shown = c.name ?? (c.text !== undefined ? '(raw text)' : `${c.records?.length ?? 0} record(s)`);
  return `${kind}[${i}]: ${shown}`;
}

function describeFindings(findings: readonly Finding[]): string {
  if (findings.length === 0) return '(none)';
  return findings
    .map((f) => `  line ${f.line} ${f.severity} ${f.messageId}${f.fix ? ` fix:${f.fix.applicability}` : ''}: ${f.message}`)
    .join('\n');
}

/** Computes a fix's edits and checks they are well-formed against the file. */
function checkFixEdits(index: SessionIndex, finding: Finding, where: string): void {
  const fix = finding.fix;
  if (fix === undefined) return;
  expect(fix.title, `${where}: fix title`).not.toBe('');
  const edits = fix.edits();
  for (const edit of edits) {
    expect(edit.line, `${where}: edit line`).toBeGreaterThanOrEqual(1);
    expect(edit.line, `${where}: edit line`).toBeLessThanOrEqual(index.stats.lineCount);
    if (edit.kind !== 'insertAfter') {
      expect(edit.before, `${where}: edit.before must be the line as read`).toBe(index.lineText(edit.line));
    }
    // `before` never holds a BOM, so rewriting line 1 as is does drop one.
    if (edit.kind === 'replace' && !(edit.line === 1 && index.stats.hasBom)) {
      expect(edit.after, `${where}: a replace edit must change the line`).not.toEqual([edit.before]);
    }
    if (edit.kind !== 'delete') {
      for (const text of edit.after) {
        const parsed = JSON.parse(text) as unknown;
        expect(parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed), `${where}: edit writes a JSON object`).toBe(true);
        expect(text, `${where}: edit writes one line`).not.toMatch(/[\r\n]/);
      }
    }
  }
}

/** Runs one valid case; throws (an assertion error) when it fails. */
export function runValidCase(rule: Rule, c: ValidCase, name: string): void {
  let result: ReturnType<typeof lintCase> | undefined;
  expect(() => {
    result = lintCase([rule], c);
  }, `${name}: the rule threw`).not.toThrow();
  const findings = result?.findings ?? [];
  expect(findings.length, `${name}: expected no findings, got\n${describeFindings(findings)}`).toBe(0);
}

/** Runs one invalid case; throws (an assertion error) when it fails. */
export function runInvalidCase(rule: Rule, c: InvalidCase, name: string): void {
  const { meta } = rule;
  expect(c.errors.length, `${name}: an invalid case needs at least one expected error`).toBeGreaterThan(0);
  let result: ReturnType<typeof lintCase> | undefined;
  expect(() => {
    result = lintCase([rule], c);
  }, `${name}: the rule threw`).not.toThrow();
  const { index, findings } = result as ReturnType<typeof lintCase>;
  const got = `got\n${describeFindings(findings)}`;
  expect(findings.length, `${name}: number of findings; ${got}`).toBe(c.errors.length);
  c.errors.forEach((e, j) => {
    const f = findings[j] as Finding;
    const where = `${name} errors[${j}]`;
    expect(meta.messages[e.messageId], `${where}: "${e.messageId}" is not a messageId of ${meta.id}`).toBeDefined();
    expect(f.messageId, `${where}: messageId; ${got}`).toBe(e.messageId);
    expect(f.line, `${where}: line; ${got}`).toBe(e.line);
    if (e.uuid !== undefined) expect(f.uuid, `${where}: uuid`).toBe(uuidOf(e.uuid));
    expect(f.severity, `${where}: severity; ${got}`).toBe(e.severity ?? meta.severity);
    expect(f.message, `${where}: message has an unfilled placeholder`).not.toMatch(/\{\w+\}/);
    if (typeof e.message === 'string') expect(f.message, `${where}: message`).toBe(e.message);
    else if (e.message !== undefined) expect(f.message, `${where}: message`).toMatch(e.message);
    if (meta.fixable === undefined) {
      expect(e.fix ?? null, `${where}: ${meta.id} is not fixable`).toBeNull();
    } else {
      expect(e.fix, `${where}: ${meta.id} is fixable; say fix: { applicability } or fix: null`).not.toBeUndefined();
    }
    if (e.fix === null || e.fix === undefined) {
      expect(f.fix, `${where}: expected no fix, got "${f.fix?.title ?? ''}"`).toBeUndefined();
    } else {
      expect(f.fix, `${where}: expected a fix`).toBeDefined();
      expect(f.fix?.applicability, `${where}: fix applicability`).toBe(e.fix.applicability);
      checkFixEdits(index, f, where);
    }
  });
}

/** Case labels that repeat an earlier case: `[repeat, original]` pairs. */
export function duplicateCases(tests: RuleTests): Array<[string, string]> {
  const seen = new Map<string, string>();
  const repeats: Array<[string, string]> = [];
  const visit = (kind: 'valid' | 'invalid', c: CaseBase, i: number): void => {
    const key = caseKey(c);
    const previous = seen.get(key);
    if (previous === undefined) seen.set(key, `${kind}[${i}]`);
    else repeats.push([`${kind}[${i}]`, previous]);
  };
  tests.valid.forEach((c, i) => visit('valid', c, i));
  tests.invalid.forEach((c, i) => visit('invalid', c, i));
  return repeats;
}

export function ruleTester(rule: Rule, tests: RuleTests): void {
  describe(rule.meta.id, () => {
    const repeats = new Map(duplicateCases(tests));
    tests.valid.forEach((c, i) => {
      const name = label('valid', i, c);
      it(name, () => {
        expect(repeats.get(`valid[${i}]`), `${name} repeats an earlier case`).toBeUndefined();
        runValidCase(rule, c, name);
      });
    });
    tests.invalid.forEach((c, i) => {
      const name = label('invalid', i, c);
      it(name, () => {
        expect(repeats.get(`invalid[${i}]`), `${name} repeats an earlier case`).toBeUndefined();
        runInvalidCase(rule, c, name);
      });
    });
  });
}
