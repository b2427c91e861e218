/**
 * The formatter contract: a pure function from results to a string. No I/O,
 * no re-reading of files, no process state; everything a formatter needs is
 * in its arguments, so each one can be tested with synthetic results.
 */
import type { FileResult } from '../core/types.js';
import type { RuleMeta } from '../rules/rule.js';

export interface FormatContext {
  /** Folder paths are shown relative to. */
  readonly cwd: string;
  /** ANSI colour allowed (a TTY without NO_COLOR / --no-color). */
  readonly color: boolean;
  readonly rulesMeta: ReadonlyMap<string, RuleMeta>;
  readonly version: string;
  /** The tool's home page (SARIF `informationUri`). */
  readonly informationUri?: string | undefined;
  /** Each rule's documentation page: where it is published and its Markdown (SARIF `helpUri`, `help`). */
  readonly ruleHelp?: ReadonlyMap<string, RuleHelp> | undefined;
  /** A path named on the command line could not be read (the reason is on stderr). */
  readonly unreadableInputs?: boolean | undefined;
  /** `--max-warnings` was set and exceeded. */
  readonly maxWarningsExceeded?: { readonly maxWarnings: number; readonly foundWarnings: number } | undefined;
}

export interface RuleHelp {
  readonly uri: string;
  readonly markdown: string;
}

export type Formatter = (results: readonly FileResult[], context: FormatContext) => string;

/** A formatter whose text can be big, in pieces that joined are its text. */
export type ChunkedFormatter = (results: readonly FileResult[], context: FormatContext) => Iterable<string>;
