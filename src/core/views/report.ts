/**
 * The report's view model of one session: its tree with every record (the
 * page does its own folding), the messages resume loads, the resume
 * figures, the findings by line, and optionally the dry-run diff and the
 * conversation. Built here; src/formatters/report-html.ts draws it.
 */
import type { RecordSummary } from '../records.js';
import { resumeModel } from '../resume.js';
import type { SessionIndex } from '../session-index.js';
import type { ApiViolationSummary, FileResult, Finding } from '../types.js';
import { type Conversation, launchCwd, resumeCommand } from './conversation.js';
import { type SessionTree, buildTree } from './tree.js';

/** A finding as the report shows it. */
export interface ReportFinding {
  readonly ruleId: string;
  readonly severity: string;
  readonly line: number;
  readonly uuid?: string | undefined;
  readonly message: string;
}

/** One session's part of the report. */
export interface SessionSection {
  readonly anchor: string;
  readonly title: string;
  readonly displayPath: string;
  readonly sessionId: string;
  readonly command: string;
  /** The tree with every record (`buildTree(…, { all: true })`); the page does its own folding. */
  readonly tree: SessionTree;
  /** The messages `claude --resume` loads (resume.messages). */
  readonly loaded: ReadonlySet<RecordSummary>;
  readonly resume: {
    readonly loaded: number;
    readonly total: number;
    readonly fidelity: number;
    /** The first request after resuming passes the API rules cclint models (undefined: not judged). */
    readonly apiValid?: boolean | undefined;
    readonly apiViolations?: readonly ApiViolationSummary[] | undefined;
  };
  readonly score: number;
  readonly findings: readonly ReportFinding[];
  /** `cclint fix --dry-run`'s unified diff for the file, when asked for and not empty. */
  readonly diff?: string | undefined;
  /** The conversation, for `export --format html`. */
  readonly conversation?: Conversation | undefined;
  readonly thinking?: boolean | undefined;
}


/** The section of one session file, from its index and findings. */
export function sectionOf(
  index: SessionIndex,
  findings: readonly Finding[],
  result: FileResult,
  title: string,
  extra: { readonly diff?: string | undefined; readonly conversation?: Conversation | undefined; readonly thinking?: boolean } = {},
): SessionSection {
  const resume = resumeModel(index);
  const sessionId = index.file.layoutSessionId ?? index.records.find((r) => r.sessionId !== undefined)?.sessionId ?? '';
  return {
    anchor: `s-${sessionId !== '' ? sessionId : index.file.displayPath.replace(/[^A-Za-z0-9]+/g, '-')}`,
    title,
    displayPath: index.file.displayPath,
    sessionId,
    command: resumeCommand(launchCwd(index), sessionId),
    tree: buildTree(index, resume, { all: true }),
    loaded: new Set(resume.messages),
    resume: {
      loaded: resume.loaded,
      total: resume.total,
      fidelity: resume.fidelity,
      apiValid: result.resume?.apiValid,
      apiViolations: result.resume?.apiViolations,
    },
    score: result.score ?? 0,
    findings: findings.map((f) => ({ ruleId: f.ruleId, severity: f.severity, line: f.line, uuid: f.uuid, message: f.message })),
    diff: extra.diff,
    conversation: extra.conversation,
    thinking: extra.thinking,
  };
}

