/**
 * The trust boundary of the writer: cclint never writes through a symbolic
 * link, neither the session file, nor the folders between it and the
 * projects root, nor its own state (home, backups, audit log, journal),
 * because a link would make it write outside where it means to. Its home is
 * kept 0700 and what it writes there 0600.
 */
import path from 'node:path';
import { PathError } from '../core/errors.js';
import type { FsPort } from './fs-port.js';
import type { CommitOptions } from './options.js';
import { homeFor, isInside, journalDir } from './state-paths.js';
import type { FilePlan } from './types.js';

function isLink(port: FsPort, file: string): boolean {
  try {
    return port.lstat(file).isSymbolicLink === true;
  } catch {
    return false; // not there (yet): nothing to follow
  }
}

/** The path and each folder above it, up to (not including) `stop`, or the filesystem root. */
export function chain(file: string, stop: string | undefined): string[] {
  const out: string[] = [];
  let at = path.resolve(file);
  for (;;) {
    if (stop !== undefined && (at === stop || !isInside(at, stop))) break;
    out.push(at);
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  return out;
}

/**
 * Throws {@link PathError} when the session file, a folder between it and
 * the projects root, or a piece of cclint's state is a symbolic link.
 */
export function assertNoLinks(options: CommitOptions, plan: FilePlan, backupRoot: string, auditLog: string): void {
  const port = options.fs;
  const cwd = options.cwd ?? process.cwd();
  const projectsRoot = path.resolve(cwd, options.projectsRoot);
  const file = path.resolve(cwd, plan.file.path);
  const inRoot = isInside(file, projectsRoot);
  for (const p of chain(file, inRoot ? projectsRoot : path.dirname(path.dirname(file)))) {
    if (isLink(port, p)) {
      throw new PathError(
        `refusing to write ${plan.file.displayPath}: ${p === file ? 'it' : p} is a symbolic link, and cclint never writes through one; nothing was changed`,
      );
    }
  }
  const home = homeFor(options);
  assertStateNotLinked(port, plan, [home, journalDir(options), backupRoot, auditLog]);
}

/** Throws {@link PathError} when one of these state paths is a symbolic link. */
export function assertStateNotLinked(port: FsPort, plan: FilePlan, paths: readonly string[]): void {
  for (const p of paths) {
    if (isLink(port, p)) {
      throw new PathError(
        `refusing to write ${plan.file.displayPath}: cclint's state path ${p} is a symbolic link, and cclint never writes through one; nothing was changed`,
      );
    }
  }
}

/** Creates cclint's home 0700 (tightening an existing one) so backups of private transcripts stay private. */
export function secureHome(options: Pick<CommitOptions, 'fs' | 'env' | 'cclintHome' | 'cwd'>): void {
  const port = options.fs;
  const home = homeFor(options);
  try {
    port.mkdirp(home, 0o700);
    if ((port.stat(home).mode & 0o077) !== 0) port.chmod(home, 0o700);
  } catch {
    // A home that cannot be made fails later, with the step that needs it.
  }
}
