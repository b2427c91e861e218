/**
 * Where cclint keeps its state: `$CCLINT_HOME` (else `<HOME>/.cclint`), the
 * backups folder, the audit log and the journal of writes in progress, and
 * the Claude Code config folder it reads the live-session registry from.
 */
import os from 'node:os';
import path from 'node:path';
import type { CommitOptions } from './options.js';

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
}

/** `$CCLINT_HOME`, else `<HOME>/.cclint` (HOME from `env`). */
export function cclintHome(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string {
  const configured = env.CCLINT_HOME;
  if (configured !== undefined && configured !== '') return path.resolve(cwd, configured);
  return path.join(homeOf(env), '.cclint');
}

/** `$CLAUDE_CONFIG_DIR`, else `<HOME>/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv): string {
  const configured = env.CLAUDE_CONFIG_DIR;
  if (configured !== undefined && configured !== '') return configured;
  return path.join(homeOf(env), '.claude');
}

/** The cclint home folder for these options. */
export function homeFor(options: Pick<CommitOptions, 'env' | 'cclintHome' | 'cwd'>): string {
  const cwd = options.cwd ?? process.cwd();
  return options.cclintHome !== undefined ? path.resolve(cwd, options.cclintHome) : cclintHome(options.env, cwd);
}

/** Where state goes for these options. */
export function statePaths(options: Pick<CommitOptions, 'env' | 'cclintHome' | 'backupDir' | 'auditLog' | 'cwd'>): {
  backupRoot: string;
  auditLog: string;
} {
  const cwd = options.cwd ?? process.cwd();
  const home = homeFor(options);
  return {
    backupRoot: options.backupDir !== undefined ? path.resolve(cwd, options.backupDir) : path.join(home, 'backups'),
    auditLog: options.auditLog !== undefined ? path.resolve(cwd, options.auditLog) : path.join(home, 'audit.jsonl'),
  };
}

/** `<cclintHome>/inflight`: one journal file per write in progress. */
export function journalDir(options: Pick<CommitOptions, 'env' | 'cclintHome' | 'cwd'>): string {
  return path.join(homeFor(options), 'inflight');
}

/** Whether `child` is `parent` or inside it (case-folded where the file system usually is). */
export function isInside(child: string, parent: string): boolean {
  const fold = process.platform === 'darwin' || process.platform === 'win32';
  const c = fold ? child.toLowerCase() : child;
  const p = fold ? parent.toLowerCase() : parent;
  const rel = path.relative(p, c);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

