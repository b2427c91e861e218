/**
 * The contract between the planner (which only plans edits, in memory) and
 * the writer (which only commits bytes). A {@link FilePlan} is everything the
 * writer needs: the size and hash of the bytes it planned from, the bytes to
 * write (as a {@link Rewrite} of them), and the fixes with their edits for
 * the audit log.
 */
import type { SessionFile } from '../core/session-index.js';
import type { Applicability, Finding, RecordEdit, ResumeSummary } from '../core/types.js';
import type { Rewrite } from './rewrite.js';

/** A fix the planner applied, with the edits as applied (for audit and undo). */
export interface AppliedFix {
  readonly ruleId: string;
  readonly title: string;
  readonly applicability: Applicability;
  /** Edits against the text of the pass they were applied in. */
  readonly edits: readonly RecordEdit[];
  /** Planning pass (1-based) that applied it. */
  readonly pass: number;
}

/** A fix that was found but not applied, and why. */
export interface SkippedFix {
  readonly ruleId: string;
  readonly title: string;
  readonly applicability: Applicability;
  readonly line: number;
  readonly reason: string;
}

export interface FilePlan {
  readonly file: SessionFile;
  /** The session id a report gives the file (its name's, else its records'). */
  readonly sessionId?: string | undefined;
  /**
   * How many bytes of the file the plan was made from: lines a live session
   * appends after them are not part of the plan (the writer carries them).
   */
  readonly sizeBefore: number;
  readonly sha256Before: string;
  /**
   * The bytes to write, as ranges of those `sizeBefore` bytes and new
   * bytes; the identity when nothing applies.
   */
  readonly rewrite: Rewrite;
  readonly sha256After: string;
  readonly applied: readonly AppliedFix[];
  readonly skipped: readonly SkippedFix[];
  /**
   * Findings at warning level or above left after the plan (what `fix`
   * reports and exits on), without their fixes.
   */
  readonly remaining: readonly Finding[];
  /** How many info findings are left: counted, not kept (a session can have 200,000). */
  readonly remainingInfo: number;
  readonly resumeBefore: ResumeSummary;
  readonly resumeAfter: ResumeSummary;
  readonly scoreBefore: number;
  readonly scoreAfter: number;
  /**
   * Set when planning stopped at its last pass (this many) while fixes were
   * still applying (a file with dozens of copies of one uuid, say): `fix`
   * again may apply more.
   */
  readonly cutShortAfter?: number | undefined;
  /** Set when the plan refuses to write this file at all. */
  readonly refusal?: string | undefined;
  /**
   * Uuids the new bytes no longer hold, when the plan's maker knows them
   * better than its edits say (a restore); lines a live session appends
   * that name one cannot follow the new bytes.
   */
  readonly removedUuids?: readonly string[] | undefined;
}

/** Who said yes. */
export type Decider = 'yes' | 'interactive';

/** One line of `$CCLINT_HOME/audit.jsonl`. */
export interface AuditEntry {
  readonly id: string;
  /** What the line records: a fix (also when absent, in older lines) or a `cclint restore`. */
  readonly kind?: 'fix' | 'restore' | undefined;
  /** For a restore: the id of the entry whose change it undid. */
  readonly restores?: string | undefined;
  readonly time: string;
  readonly cclintVersion: string;
  readonly file: string;
  readonly sessionId: string | undefined;
  readonly sha256Before: string;
  readonly sha256After: string;
  /**
   * Length of the bytes the fix wrote (absent in older lines: the whole
   * file). Lines a live session appended after them are not part of the
   * fix: `restore` puts them back after the old bytes.
   */
  readonly sizeAfter?: number | undefined;
  readonly backup: string;
  readonly decidedBy: Decider;
  readonly resumeBefore: ResumeSummary;
  readonly resumeAfter: ResumeSummary;
  readonly scoreBefore: number;
  readonly scoreAfter: number;
  readonly fixes: ReadonlyArray<{
    readonly ruleId: string;
    readonly title: string;
    readonly applicability: Applicability;
    /** Each edit with its inverse; record bodies stay in the backup. */
    readonly edits: ReadonlyArray<{ readonly edit: AuditEdit; readonly inverse: AuditEdit }>;
  }>;
}

/**
 * An edit as the audit log keeps it: line numbers and hashes, no content.
 * Each hash is the sha256 (hex) of the line texts, without line endings,
 * joined with `\n`.
 */
export type AuditEdit =
  | {
      readonly kind: 'replace';
      readonly line: number;
      /** How many lines it replaces, from `line` on (1 when absent). */
      readonly span?: number | undefined;
      readonly sha256Before: string;
      readonly sha256After: string;
      readonly lines: number;
    }
  | {
      readonly kind: 'delete';
      readonly line: number;
      /** How many lines it deletes, from `line` on (1 when absent). */
      readonly span?: number | undefined;
      readonly sha256Before: string;
    }
  | { readonly kind: 'insertAfter'; readonly line: number; readonly sha256After: string; readonly lines: number };
