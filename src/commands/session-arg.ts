/**
 * The `<session>` argument of `show` and `tree`: a transcript path, or a
 * session id (or a unique prefix of one, at least 8 characters, as
 * `cclint sessions` prints it) looked up in every project folder of the
 * default projects root. The file is indexed and linked to the rest of its
 * session group exactly as `check` does, so fidelity and orphan verdicts agree
 * with `check`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { classifyPath, defaultProjectsRoot, describeFsError, discover } from '../core/discovery.js';
import { PathError, UsageError } from '../core/errors.js';
import { indexFile, linkGroup, ProjectRegistry } from '../engine/linter.js';
import { splitBytesFor } from '../engine/split-parse.js';
import type { SessionIndex } from '../core/session-index.js';
import { describeNotTranscript, notTranscript } from '../core/transcript.js';
import type { Io } from '../io.js';

const ID_PREFIX_RE = /^[0-9a-f-]{8,36}$/i;

/** Finds `<id>.jsonl` (or a unique `<prefix>…jsonl`) in the project folders under `root`. */
export function findSessionFile(id: string, root: string): string {
  let projects: fs.Dirent[];
  try {
    projects = fs.readdirSync(root, { withFileTypes: true });
  } catch (error) {
    throw new PathError(`cannot look up session ${id}: ${describeFsError(error, root)}`);
  }
  const wanted = `${id.toLowerCase()}`;
  const exact: string[] = [];
  const prefixed: string[] = [];
  for (const project of projects.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!project.isDirectory() && !project.isSymbolicLink()) continue;
    const dir = path.join(root, project.name);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith('.jsonl')) continue;
      const stem = name.slice(0, -'.jsonl'.length).toLowerCase();
      if (stem === wanted) exact.push(path.join(dir, name));
      else if (stem.startsWith(wanted)) prefixed.push(path.join(dir, name));
    }
  }
  const found = exact.length > 0 ? exact : prefixed;
  if (found.length === 1) return found[0] as string;
  if (found.length === 0) {
    throw new PathError(`no session ${id} under ${root} (pass a file path, or set CLAUDE_CONFIG_DIR)`);
  }
  throw new UsageError(
    `session ${id} is ambiguous: ${found.length} files match under ${root} (${found
      .slice(0, 3)
      .map((f) => path.relative(root, f))
      .join(', ')}${found.length > 3 ? ', …' : ''}); pass the file path`,
  );
}

/**
 * Whether a folder holds a `.jsonl` file anywhere below it. Stops at the
 * first one, and does not follow linked folders, so a projects root costs
 * one listing and a link loop costs nothing.
 */
function holdsJsonlFile(dir: string): boolean {
  const pending = [dir];
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.endsWith('.jsonl') && !entry.isDirectory()) return true;
      if (entry.isDirectory()) pending.push(path.join(folder, entry.name));
    }
  }
  return false;
}

/** Resolves `<session>` to an absolute transcript path. */
export function resolveSessionPath(arg: string, io: Io): string {
  const absolute = path.resolve(io.cwd, arg);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new PathError(describeFsError(error, arg));
  }
  if (stat !== undefined) {
    if (stat.isDirectory()) {
      if (!holdsJsonlFile(absolute)) throw new PathError(`no session file found under ${arg}`);
      throw new UsageError(`${arg} is a folder; give one session file or session id (\`cclint sessions ${arg}\` lists them)`);
    }
    // A named pipe, a device or a socket: as \`check\` says of one.
    if (!stat.isFile()) throw new PathError(`${arg}: not a regular file or folder`);
    return absolute;
  }
  const looksLikePath = arg.includes('/') || arg.includes(path.sep) || arg.endsWith('.jsonl');
  if (looksLikePath || !ID_PREFIX_RE.test(arg)) throw new PathError(`${arg}: no such file or folder`);
  return findSessionFile(arg, defaultProjectsRoot(io.env));
}

/**
 * Indexes one session file. Parents it does not hold are looked up in the
 * rest of its session group and then its project folder, as `check` does;
 * nothing beyond the file itself is read when every parent is in it.
 */
export function loadSession(arg: string, io: Io): SessionIndex {
  const file = classifyPath(resolveSessionPath(arg, io), io.cwd);
  let index: SessionIndex;
  try {
    // One session, nothing else to do meanwhile: a big one is indexed on two threads.
    index = indexFile(file, undefined, splitBytesFor(io.env));
  } catch (error) {
    throw new PathError(describeFsError(error, file.displayPath));
  }
  const verdict = notTranscript(index);
  if (verdict !== undefined) throw new PathError(`${file.displayPath}: ${describeNotTranscript(verdict)}`);
  // Parents this file does not hold are looked up in its folder, as
  // `check <file>` does: the same file named alone or with its folder, by
  // check or by show, is read the same way. A file of Claude Code's layout
  // is read with its group (its subagents); one outside it (in ~/Downloads,
  // say) has no group, and is named alone as check names it, which lists
  // its folder's transcripts without walking every folder below it.
  if (index.unresolvedParents().size === 0) return index;
  const discovery = discover([file.role === 'other' ? file.path : file.projectDir], io.cwd);
  const group = discovery.groups.find((g) => g.files.some((f) => f.path === file.path));
  const others: SessionIndex[] = [];
  for (const other of group?.files ?? []) {
    if (other.path === file.path) continue;
    try {
      others.push(indexFile(other));
    } catch {
      // An unreadable sibling only means fewer parents can be resolved.
    }
  }
  linkGroup([index, ...others], new ProjectRegistry(discovery.projectFiles));
  return index;
}
