/**
 * The options of a commit: where state goes, who decided, and the hooks
 * (clock, pid check, file system) tests replace.
 */
import type { FsPort } from './fs-port.js';
import type { Decider } from './types.js';

export interface CommitOptions {
  readonly fs: FsPort;
  /** HOME, CCLINT_HOME and CLAUDE_CONFIG_DIR are read from here, never from the process. */
  readonly env: NodeJS.ProcessEnv;
  readonly decidedBy: Decider;
  /** The Claude Code projects root; backups and the audit log must stay outside it. */
  readonly projectsRoot: string;
  /** Default: `$CCLINT_HOME`, else `<HOME>/.cclint`. */
  readonly cclintHome?: string | undefined;
  /** `--backup-dir`: replaces `<cclintHome>/backups`. */
  readonly backupDir?: string | undefined;
  /** `--audit-log`: replaces `<cclintHome>/audit.jsonl`. */
  readonly auditLog?: string | undefined;
  /** Claude Code's config folder (for `sessions/`); default `$CLAUDE_CONFIG_DIR`, else `<HOME>/.claude`. */
  readonly configDir?: string | undefined;
  /** Folder that relative `backupDir`/`auditLog`/`CCLINT_HOME` are resolved against. */
  readonly cwd?: string | undefined;
  /** `--force`: write even when the session looks live. */
  readonly force?: boolean | undefined;
  /** Put the file's previous mtime back after writing (so `--continue` keeps its choice). */
  readonly keepMtime?: boolean | undefined;
  readonly version?: string | undefined;
  readonly now?: (() => number) | undefined;
  readonly isPidAlive?: ((pid: number) => boolean) | undefined;
  readonly settleMs?: number | undefined;
  /**
   * A mtime at or after this (ms) is known to be cclint's own last write
   * (a restore checks the file's hash against the fix first), so it does not
   * count as Claude Code activity; the `sessions/` registry is still checked.
   */
  readonly ownWriteSince?: number | undefined;
}

