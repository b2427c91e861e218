/**
 * Backups: a verified, fsynced 0600 copy of the bytes a plan was made from,
 * under `$CCLINT_HOME/backups/<project>/<session>/`, never inside the Claude
 * Code projects root and never named `.jsonl`.
 */
import path from 'node:path';
import { BackupError, ConcurrentModificationError } from '../core/errors.js';
import { handleContent, writeVerified } from './content.js';
import { errorText, type ReadHandle, removeQuietly } from './fs-port.js';
import { hashPrefix } from './journal.js';
import type { CommitOptions } from './options.js';
import { isInside } from './state-paths.js';
import type { FilePlan } from './types.js';

function timestampForName(ms: number): string {
  return new Date(ms).toISOString().replaceAll(':', '').replace('.', '-');
}

function safeSegment(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return cleaned === '' ? '_' : cleaned;
}

/** Where the backup of this plan goes (not yet created). */
export function backupPathFor(plan: FilePlan, backupRoot: string, nowMs: number): string {
  const stem = path.basename(plan.file.path).replace(/\.jsonl$/i, '');
  const folder = plan.file.layoutSessionId ?? stem;
  // A subagent file shares its session's folder; its stem tells it apart.
  const label = plan.file.role === 'main' ? '' : `${safeSegment(stem)}-`;
  return path.join(
    backupRoot,
    safeSegment(plan.file.projectFolderName),
    safeSegment(folder),
    `${timestampForName(nowMs)}-${label}${plan.sha256Before.slice(0, 8)}.jsonl.bak`,
  );
}

/**
 * Refuses a backup folder or audit log inside a projects root, where Claude
 * Code would list them: the default one, and the `projects` folder that
 * holds the session being written when that is another (a copy of another
 * machine's `~/.claude`, say). Before the second, `--audit-log` could name
 * another session of the folder, or the very session being fixed, and get
 * the audit line appended to it.
 */
export function assertStateOutsideProjects(options: CommitOptions, plan: FilePlan, backupRoot: string, auditLog: string): void {
  const cwd = options.cwd ?? process.cwd();
  const roots = [path.resolve(cwd, options.projectsRoot)];
  // Claude Code keeps its project folders in `<config>/projects`; a file
  // elsewhere (a session saved in ~/Downloads) has no projects root to keep out of.
  const holder = path.dirname(path.resolve(cwd, plan.file.projectDir));
  if (path.basename(holder) === 'projects') roots.push(holder);
  for (const [what, where] of [
    ['backup folder', backupRoot],
    ['audit log', auditLog],
  ] as const) {
    for (const root of roots) {
      if (isInside(where, root)) {
        throw new BackupError(
          `refusing to keep the ${what} at ${where}: it is inside the Claude Code projects folder ${root}, where Claude Code would see it; set CCLINT_HOME or --backup-dir/--audit-log to a folder outside it`,
        );
      }
    }
  }
}

/** A backup path for the plan that does not exist yet; creates its folder (0700). */
export function chooseBackupPath(options: CommitOptions, plan: FilePlan, backupRoot: string, nowMs: number): string {
  const port = options.fs;
  const first = backupPathFor(plan, backupRoot, nowMs);
  let target = first;
  try {
    port.mkdirp(path.dirname(target), 0o700);
    for (let n = 1; port.exists(target); n++) target = first.replace(/\.jsonl\.bak$/, `-${n}.jsonl.bak`);
  } catch (error) {
    throw new BackupError(`could not back up ${plan.file.displayPath} to ${target}: ${errorText(error)}; nothing was changed`);
  }
  return target;
}

/**
 * Copies the old bytes (the first `sizeBefore` bytes behind `old`) to
 * `target` (0600, fsynced) and verifies the copy's hash by reading it back.
 */
export function writeBackup(options: CommitOptions, plan: FilePlan, target: string, old: ReadHandle): void {
  const port = options.fs;
  try {
    writeVerified(port, target, handleContent(old, plan.sizeBefore, plan.sha256Before), 0o600, plan.file.displayPath);
  } catch (error) {
    if (error instanceof ConcurrentModificationError) throw error; // the file is not what was planned
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') removeQuietly(port, target); // a partial copy
    throw new BackupError(`could not back up ${plan.file.displayPath} to ${target}: ${errorText(error)}; nothing was changed`);
  }
  let copy: string | undefined;
  try {
    const handle = port.openRead(target);
    try {
      copy = hashPrefix(handle, plan.sizeBefore);
      if (handle.size() !== plan.sizeBefore) copy = undefined;
    } finally {
      handle.close();
    }
  } catch (error) {
    removeQuietly(port, target);
    throw new BackupError(`could not read back the backup ${target}: ${errorText(error)}; nothing was changed`);
  }
  if (copy !== plan.sha256Before) {
    removeQuietly(port, target);
    throw new BackupError(`the backup ${target} does not match ${plan.file.displayPath} after writing it; nothing was changed`);
  }
}
