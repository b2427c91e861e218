/**
 * `--format json`, schema version 2 as fixed in the spec: `resume.loaded`
 * is the real CLI's count, `resume.sdk` the Agent SDK reader's (version 1's
 * `loaded`). Field names and
 * meanings are a contract: fields may be added, none may change meaning.
 * Fixes are described (title, applicability), never computed: building their
 * edits would re-read the file, which a formatter must not do.
 */
import type { ForkSummary } from '../core/types.js';
import type { Applicability, FileResult, Finding, ResumeSummary, Severity } from '../core/types.js';
import type { FormatContext, Formatter } from './types.js';
import { terminalSafeJsonChunks } from '../escape.js';
import { totalsOf } from './summary.js';

/** One finding in the JSON report. `messageId` is an addition to the spec's fields. */
export interface JsonMessage {
  readonly ruleId: string;
  readonly messageId: string;
  readonly severity: Severity;
  readonly line: number;
  /** Absent when the finding is not about a record with a uuid. */
  readonly uuid?: string;
  readonly message: string;
  readonly fix?: { readonly title: string; readonly applicability: Applicability };
}

export interface JsonFileResult {
  readonly filePath: string;
  /** `null` when the file names no session (the spec shows a string; the key is always present). */
  readonly sessionId: string | null;
  readonly errorCount: number;
  readonly warningCount: number;
  readonly infoCount: number;
  /**
   * `null` for a file that is not a transcript: there is no conversation to
   * measure (never a "fidelity 100%"), and the spec's keys stay present.
   */
  readonly resume: ResumeSummary | null;
  readonly score: number | null;
  /** Added field: forks by kind and abandoned branches (see src/core/forks.ts). */
  readonly forks?: ForkSummary;
  readonly messages: readonly JsonMessage[];
}

export interface JsonReport {
  readonly version: 2;
  readonly results: readonly JsonFileResult[];
  readonly summary: {
    readonly files: number;
    readonly errorCount: number;
    readonly warningCount: number;
    readonly infoCount: number;
  };
}

function messageOf(f: Finding): JsonMessage {
  return {
    ruleId: f.ruleId,
    messageId: f.messageId,
    severity: f.severity,
    line: f.line,
    ...(f.uuid === undefined ? {} : { uuid: f.uuid }),
    message: f.message,
    ...(f.fix === undefined ? {} : { fix: { title: f.fix.title, applicability: f.fix.applicability } }),
  };
}

function fileOf(r: FileResult): JsonFileResult {
  return {
    filePath: r.filePath,
    sessionId: r.sessionId ?? null,
    errorCount: r.errorCount,
    warningCount: r.warningCount,
    infoCount: r.infoCount,
    resume:
      r.resume === undefined
        ? null
        : {
            loaded: r.resume.loaded,
            total: r.resume.total,
            fidelity: r.resume.fidelity,
            sdk: r.resume.sdk,
            // Added fields: does the request resume sends pass the API's rules, and which does it break.
            ...(r.resume.apiValid === undefined ? {} : { apiValid: r.resume.apiValid }),
            ...(r.resume.apiViolations === undefined ? {} : { apiViolations: r.resume.apiViolations }),
          },
    score: r.score ?? null,
    ...(r.forks === undefined ? {} : { forks: r.forks }),
    messages: r.findings.map(messageOf),
  };
}

/** The report as data; {@link json} is this, pretty-printed. */
export function jsonReport(results: readonly FileResult[]): JsonReport {
  const t = totalsOf(results);
  return {
    version: 2,
    results: results.map(fileOf),
    summary: { files: t.files, errorCount: t.errorCount, warningCount: t.warningCount, infoCount: t.infoCount },
  };
}

/**
 * Pretty-printed with two spaces, ending with a newline. Values are exact;
 * the few characters JSON leaves raw that a terminal would act on are
 * written as `\u` escapes of themselves.
 */
export const json: Formatter = (results: readonly FileResult[], context: FormatContext): string => [...jsonChunks(results, context)].join('');

/** {@link json} in pieces, for a report too big to hold as one string (what `check` writes). */
export function* jsonChunks(results: readonly FileResult[], _context: FormatContext): Generator<string> {
  yield* terminalSafeJsonChunks(jsonReport(results));
  yield '\n';
}
