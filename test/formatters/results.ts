/**
 * Synthetic results for the formatter tests: plain data, never produced by
 * the linter. Fixes throw from `edits()` so a formatter that computes them fails.
 */
import type { Applicability, FileResult, Finding, Fix } from '../../src/core/types.js';
import { countBySeverity } from '../../src/core/types.js';
import type { FormatContext } from '../../src/formatters/types.js';
import type { RuleMeta } from '../../src/rules/rule.js';

export const UUID_A = '9f3e1a2b-0000-4000-8000-00000000000a';
export const UUID_B = 'abcdef01-0000-4000-8000-00000000000b';
export const SESSION = '11111111-2222-4333-8444-555555555555';

export function fix(applicability: Applicability, title = `fix (${applicability})`): Fix {
  return {
    title,
    applicability,
    edits: () => {
      throw new Error('a formatter must never compute fix edits');
    },
  };
}

export function finding(overrides: Partial<Finding> & Pick<Finding, 'ruleId' | 'line'>): Finding {
  return { severity: 'error', messageId: 'someMessage', message: 'something is wrong', ...overrides };
}

export function fileResult(
  filePath: string,
  findings: readonly Finding[],
  extra: Partial<Omit<FileResult, 'filePath' | 'findings'>> = {},
): FileResult {
  return { filePath, sessionId: SESSION, findings, ...countBySeverity(findings), recordCount: 10, ...extra };
}

export const META: ReadonlyMap<string, RuleMeta> = new Map<string, RuleMeta>([
  ['phantom-parent', { id: 'phantom-parent', description: 'Parents exist', severity: 'error', messages: {} }],
  ['dangling-tool-use', { id: 'dangling-tool-use', description: 'Tool uses get results', severity: 'warning', messages: {} }],
  ['string-content', { id: 'string-content', description: 'Content is blocks', severity: 'info', messages: {} }],
]);

export function context(overrides: Partial<FormatContext> = {}): FormatContext {
  return { cwd: '/home/me/repo', color: false, rulesMeta: META, version: '9.9.9', ...overrides };
}

/** One file with an info (unsafe fix), an error (safe fix) and a warning; plus a clean file. */
export function sample(): FileResult[] {
  return [
    fileResult(
      'projects/a.jsonl',
      [
        finding({
          ruleId: 'string-content',
          severity: 'info',
          messageId: 'stringContent',
          message: 'content is a plain string',
          line: 7,
          fix: fix('unsafe'),
        }),
        finding({
          ruleId: 'phantom-parent',
          messageId: 'missingParent',
          message: 'parentUuid 9f3e… does not match any record.',
          line: 42,
          uuid: UUID_A,
          fix: fix('safe', 'reattach to the previous record'),
        }),
        finding({
          ruleId: 'dangling-tool-use',
          severity: 'warning',
          messageId: 'danglingToolUse',
          message: 'tool_use has no tool_result',
          line: 1234,
          uuid: UUID_B,
        }),
      ],
      { resume: { loaded: 12, total: 1701, fidelity: 0.007, sdk: 12 }, score: 0.934 },
    ),
    fileResult('projects/b.jsonl', [], { resume: { loaded: 3, total: 3, fidelity: 1, sdk: 3 }, score: 0 }),
  ];
}

// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[[0-9;]*m/gu;
