/**
 * The rule contract. A rule is metadata plus one `check` function over a
 * read-only {@link SessionIndex}; it reports findings through its context and
 * never touches the file system or the process. Its documentation is the
 * TSDoc block at the top of its file, which `cclint explain` prints.
 */
import type { ResumeModel } from '../core/resume.js';
import type { RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Applicability, Fix, Severity } from '../core/types.js';

export interface RuleMeta {
  /** kebab-case, stable forever; also the rule's file name. */
  readonly id: string;
  /** One imperative line for `cclint rules` and SARIF. */
  readonly description: string;
  /** The level of the rule's most serious finding; config may change it. */
  readonly severity: Severity;
  /** The strongest applicability this rule's fixes may have; absent: never fixes. */
  readonly fixable?: Applicability | undefined;
  /**
   * The fix changes what a healthy session contains (normalised content,
   * synthetic tool results) rather than repairing a break, so `cclint fix`
   * applies it only when the rule is named with `--rule`.
   */
  readonly optInFix?: boolean | undefined;
  /**
   * The rule says the file is not what the other rules check (not a
   * transcript at all): it runs first, and when it reports, the other rules
   * do not run on the file, so none of their findings or fixes apply to it.
   */
  readonly exclusive?: boolean | undefined;
  /** messageId → template with `{placeholders}`. */
  readonly messages: Readonly<Record<string, string>>;
}

export interface Report {
  readonly messageId: string;
  readonly data?: Readonly<Record<string, string | number>>;
  /** The record the finding is about; gives line and uuid. */
  readonly record?: RecordSummary | undefined;
  /** For findings on a line that holds no record (an unparseable line). */
  readonly line?: number | undefined;
  /** A lower level than the rule's, for a milder form of the problem. */
  readonly severity?: Severity | undefined;
  readonly fix?: Fix | undefined;
}

export interface RuleContext {
  readonly index: SessionIndex;
  /** Claude Code's loader, modelled: what resume keeps and what it cuts. */
  readonly resume: ResumeModel;
  report(report: Report): void;
}

export interface Rule {
  readonly meta: RuleMeta;
  check(context: RuleContext): void;
}

/** Identity helper that keeps literal types and documents intent. */
export function defineRule(rule: Rule): Rule {
  return rule;
}

/** Short uuid for messages: enough to grep for, short enough to read. */
export function shortId(uuid: string | null | undefined): string {
  if (uuid === null) return 'null';
  if (uuid === undefined) return '(none)';
  if (uuid === '') return '""';
  return uuid.length > 13 ? `${uuid.slice(0, 8)}…` : uuid;
}
