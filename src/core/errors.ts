/**
 * Typed failures. Each carries the exit code it maps to; only `src/cli.ts`
 * turns them into `process.exitCode`. Everything that is "cclint could not do
 * its job" is exit 2; an interruption is 130.
 */

export class CclintError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
  }
}

/** Bad flags, bad arguments, an interactive run without a terminal. */
export class UsageError extends CclintError {}

/** A config file that is missing, unreadable or does not validate. */
export class ConfigError extends CclintError {}

/** A path named on the command line that cannot be read at all. */
export class PathError extends CclintError {}

/** The file changed between planning and writing a fix. */
export class ConcurrentModificationError extends CclintError {}

/** The backup could not be written or verified; nothing was changed. */
export class BackupError extends CclintError {}

/** A session that looks like it is still being written by Claude Code. */
export class LiveSessionError extends CclintError {}

/** Ctrl-C. */
export class InterruptedError extends CclintError {
  constructor(message = 'interrupted') {
    super(message, 130);
  }
}

/** A rule threw; the message names the rule and file so it can be reported. */
export class RuleCrashError extends CclintError {
  constructor(ruleId: string, filePath: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`rule "${ruleId}" crashed while checking ${filePath}: ${reason}`);
    this.cause = cause;
  }
}
