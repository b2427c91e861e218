/**
 * Shared vocabulary of the linter: severities, fix applicability, findings and
 * per-file results. Everything here is plain data so that formatters, the
 * planner and tests can pass it around without touching the file system.
 */
import type { FileFacts } from './views/sessions.js';

export type Severity = 'error' | 'warning' | 'info';
export type SeveritySetting = Severity | 'off';

/**
 * How far a fix may be trusted (Ruff/Biome vocabulary):
 * - `safe`: unambiguous, reversible, drops nothing; `cclint fix` applies it.
 * - `unsafe`: plausible but heuristic or changes meaning for other tools;
 *   applied only with `--unsafe`.
 * - `display-only`: shown in diffs and JSON, never applied.
 */
export type Applicability = 'safe' | 'unsafe' | 'display-only';

export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { info: 0, warning: 1, error: 2 };
export const APPLICABILITY_RANK: Readonly<Record<Applicability, number>> = {
  'display-only': 0,
  unsafe: 1,
  safe: 2,
};

/** A JSON object as it appears on one transcript line. */
export type JsonObject = { [key: string]: unknown };

/**
 * One record-level edit. Lines are 1-based physical lines of the file as it
 * was read. `before` is the exact original text of the line (without its line
 * ending) so the planner can refuse an edit whose line changed meanwhile.
 */
export type RecordEdit =
  | { readonly kind: 'replace'; readonly line: number; readonly before: string; readonly after: readonly string[] }
  | { readonly kind: 'delete'; readonly line: number; readonly before: string }
  | { readonly kind: 'insertAfter'; readonly line: number; readonly after: readonly string[] };

/**
 * A repair proposed by a rule: data, never a side effect. The edits are
 * computed on demand because building them re-reads lines from disk, which a
 * plain `check` never needs.
 */
export interface Fix {
  readonly title: string;
  readonly applicability: Applicability;
  readonly edits: () => readonly RecordEdit[];
  /**
   * When the right repair is a guess between rows: every candidate, the
   * chosen one first, for a person to pick from (the fix's own edits are the
   * first candidate's).
   */
  readonly alternatives?: readonly FixAlternative[] | undefined;
  /**
   * The fix changes or removes, on purpose, what the records it edits say
   * (drops thinking, replaces an image, gives a response a fresh
   * `message.id`): the planner does not count those records' messages as
   * lost when they change.
   */
  readonly changesContent?: boolean | undefined;
  /**
   * Lines the fix relies on staying as they are, besides those it edits: a
   * relink's target row. A fix that edits one of them goes in another
   * planning pass than this one, so that no pass relinks a row to a row the
   * same pass deletes.
   */
  readonly dependsOn?: readonly number[] | undefined;
}

/** One candidate of a fix that has several. */
export interface FixAlternative {
  readonly title: string;
  /** The row the candidate points at, shown so a person can choose. */
  readonly target: { readonly line: number; readonly type: string; readonly timestamp: string | undefined; readonly excerpt: string };
  readonly edits: () => readonly RecordEdit[];
}

/** What a rule knows about one problem, before the engine adds severity. */
export interface Finding {
  readonly ruleId: string;
  readonly severity: Severity;
  readonly messageId: string;
  readonly message: string;
  readonly line: number;
  readonly uuid?: string | undefined;
  readonly fix?: Fix | undefined;
}

/** What resume would bring back from a file today, and what a repair could. */
export interface ResumeSummary {
  /** Messages `claude --resume` sends (the CLI loader's count). */
  readonly loaded: number;
  readonly total: number;
  readonly fidelity: number;
  /** Messages the Agent SDK's reader returns. */
  readonly sdk: number;
  /**
   * The request `claude --resume` sends passes the Messages API's rules
   * cclint models (src/core/api-request.ts); absent where not computed
   * (fix plans).
   */
  readonly apiValid?: boolean | undefined;
  /** The API rules that request breaks, one entry per rule and row. */
  readonly apiViolations?: readonly ApiViolationSummary[] | undefined;
}

/** One API rule the resumed request breaks, at one row. */
export interface ApiViolationSummary {
  /** The API rule, named as in the api-validator (e.g. `thinking-not-first`). */
  readonly rule: string;
  readonly line: number;
  readonly uuid?: string | undefined;
  /** The error text the API answers. */
  readonly message: string;
}

/** The outcome of checking one file. */
export interface FileResult {
  readonly filePath: string;
  readonly sessionId: string | undefined;
  readonly findings: readonly Finding[];
  readonly errorCount: number;
  readonly warningCount: number;
  readonly infoCount: number;
  readonly resume?: ResumeSummary | undefined;
  readonly score?: number | undefined;
  /** Records (parsed lines) in the file; used for summaries and the score. */
  readonly recordCount: number;
  /** Size of the file in bytes. */
  readonly byteLength?: number | undefined;
  /** Forks by kind, and the branches resume leaves behind at rewinds. */
  readonly forks?: ForkSummary | undefined;
  /** The file has content but no Claude Code record (see core/transcript.ts); it has no resume figures. */
  readonly notTranscript?: true | undefined;
  /** What the sessions table shows of the file (titles, times), when the run asked for it (`LintOptions.facts`). */
  readonly facts?: FileFacts | undefined;
}

export interface ForkSummary {
  readonly 'tool-fanout': number;
  readonly streaming: number;
  readonly progress: number;
  readonly 'compaction-replay': number;
  readonly rewind: number;
  readonly abandoned: ReadonlyArray<{ readonly uuid: string | undefined; readonly line: number; readonly depth: number; readonly records: number }>;
}

export function countBySeverity(findings: readonly Finding[]): {
  errorCount: number;
  warningCount: number;
  infoCount: number;
} {
  let errorCount = 0;
  let warningCount = 0;
  let infoCount = 0;
  for (const f of findings) {
    if (f.severity === 'error') errorCount++;
    else if (f.severity === 'warning') warningCount++;
    else infoCount++;
  }
  return { errorCount, warningCount, infoCount };
}

/** The lower of two severities: a rule may downgrade, never upgrade, its level. */
export function minSeverity(a: Severity, b: Severity): Severity {
  return SEVERITY_RANK[a] <= SEVERITY_RANK[b] ? a : b;
}
