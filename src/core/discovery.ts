/**
 * Finds transcripts and groups them the way Claude Code relates them
 * (format.md §1): a main session `<projects>/<key>/<sid>.jsonl`, its subagent
 * files `<sid>/subagents/[nested/]agent-*.jsonl`, and the older flat
 * `agent-*.jsonl` files beside the sessions, which name their main session
 * only in their records' `sessionId`.
 *
 * Discovery never throws for one bad entry: every unreadable path, symlink
 * loop or directory named `x.jsonl` becomes a {@link DiscoveryProblem} and
 * the walk goes on. A folder named on the command line that holds no
 * transcript file at all is a problem too ("no session file found under
 * …"): a wrong or empty folder must not pass as a clean one.
 *
 * Symbolic links are followed, for reading: a linked file is read like any
 * other, and a linked folder is walked once, by its real path, so a link
 * back up the tree (a loop) is skipped with a note rather than followed
 * forever. A file reached by a second path (a link to a file already found)
 * is read once.
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import type { PathFilter } from './config.js';
import { READ_FLAGS } from './reader.js';
import type { FileRole, SessionFile } from './session-index.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isCanonicalUuid(s: string): boolean {
  return UUID_RE.test(s);
}

/** `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function defaultProjectsRoot(env: NodeJS.ProcessEnv = process.env): string {
  const config = env.CLAUDE_CONFIG_DIR?.normalize('NFC');
  if (config !== undefined && config !== '') return path.join(config, 'projects');
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
  return path.join(home, '.claude', 'projects');
}

export interface DiscoveryProblem {
  readonly path: string;
  readonly message: string;
  /** The path was named on the command line (exit 2 when nothing of it was read). */
  readonly explicit: boolean;
}

/** A main session and the files that belong with it. */
export interface SessionGroup {
  readonly projectDir: string;
  readonly sessionId: string | undefined;
  readonly files: readonly SessionFile[];
}

export interface Discovery {
  readonly groups: readonly SessionGroup[];
  readonly problems: readonly DiscoveryProblem[];
  /** Every transcript file seen per project folder (for cross-file lookups). */
  readonly projectFiles: ReadonlyMap<string, readonly string[]>;
  /** Files named on the command line that `ignorePatterns` leave out. */
  readonly ignoredExplicit: readonly string[];
}

function displayPathOf(absolute: string, cwd: string): string {
  // The common case, a file below the current folder, without path.relative
  // (a walk of thousands of files calls this once per file).
  const below = absolute.startsWith(cwd) && absolute[cwd.length] === path.sep && !cwd.endsWith(path.sep);
  if (below && absolute.length > cwd.length + 1 && !absolute.startsWith('..', cwd.length + 1)) {
    return absolute.slice(cwd.length + 1);
  }
  const relative = path.relative(cwd, absolute);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : absolute;
}

/** Files below a `<sid>/` folder that are caches, not transcripts. */
function isSideFile(name: string): boolean {
  return name === 'resume-head.jsonl';
}

/** A name the walk takes for a transcript's: `*.jsonl`, and not a side file. */
function isTranscriptName(name: string): boolean {
  return name.endsWith('.jsonl') && !isSideFile(name);
}

/** What a folder entry is, a symbolic link looked through (throws when its target cannot be looked at). */
function kindOf(entry: fs.Dirent, file: string): { isDirectory: boolean; isFile: boolean } {
  if (!entry.isSymbolicLink()) return { isDirectory: entry.isDirectory(), isFile: entry.isFile() };
  const st = fs.statSync(file);
  return { isDirectory: st.isDirectory(), isFile: st.isFile() };
}

/**
 * Whether a path that was not found (ENOENT) likely came from a folder
 * listing whose name is not valid UTF-8: Node gives such a name with U+FFFD
 * in place of the bytes it could not decode, and a path made of it names
 * no file.
 */
export function hasUndecodableName(file: string): boolean {
  return file.includes('\uFFFD');
}

/** What cclint says of a file it found but cannot open by its name. */
const UNDECODABLE_NAME = 'its name is not valid UTF-8, so cclint cannot open it by name (rename the file to read it)';

/** Where a transcript sits in the layout, from its path alone. */
export function classifyPath(file: string, cwd: string): SessionFile {
  const name = path.basename(file);
  const stem = name.replace(/\.jsonl$/i, '');
  const parts = file.split(path.sep);
  const subagentsAt = parts.lastIndexOf('subagents');
  let role: FileRole = 'other';
  let projectDir = path.dirname(file);
  let layoutSessionId: string | undefined;
  if (subagentsAt >= 2 && name.startsWith('agent-')) {
    role = 'subagent';
    layoutSessionId = parts[subagentsAt - 1];
    projectDir = parts.slice(0, subagentsAt - 1).join(path.sep) || path.sep;
  } else if (name.startsWith('agent-')) {
    role = 'legacy-agent';
  } else if (isCanonicalUuid(stem)) {
    role = 'main';
    layoutSessionId = stem;
  }
  return {
    path: file,
    displayPath: displayPathOf(file, cwd),
    role,
    projectDir,
    projectFolderName: path.basename(projectDir),
    layoutSessionId,
  };
}

/** The buffer {@link peekSessionId} reads into, reused: a projects root can hold thousands of old agent files. */
let peekBuffer: Buffer | undefined;

/**
 * Peeks at a file's first 64 KiB for its records' `sessionId`. The head is
 * read as Latin-1 (one character per byte: a quick one-byte string, and
 * the pattern, all ASCII, matches where it matches in the UTF-8 reading);
 * the id found is then decoded from its bytes as UTF-8.
 */
function peekSessionId(file: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, READ_FLAGS);
    const head = (peekBuffer ??= Buffer.allocUnsafe(64 * 1024));
    const n = fs.readSync(fd, head, 0, head.length, 0);
    // JSON's own whitespace only, the same characters in either reading.
    const match = /"sessionId"[ \t\n\r]*:[ \t\n\r]*"([^"]+)"/.exec(head.toString('latin1', 0, n));
    return match?.[1] === undefined ? undefined : Buffer.from(match[1], 'latin1').toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Walks `inputs` (files, project folders, whole projects roots, or any folder
 * holding transcripts) and groups what it finds.
 */
export interface DiscoverOptions {
  /**
   * Group old flat `agent-*.jsonl` files with their main session by peeking
   * at their first 64 KiB for its id (default true). `check` does not need
   * it: parents are resolved across the whole project folder anyway.
   */
  readonly groupLegacyAgents?: boolean | undefined;
  /** Leaves out the files and folders it matches (the config's `ignorePatterns`). */
  readonly ignore?: PathFilter | undefined;
}

export function discover(inputs: readonly string[], cwd: string, options: DiscoverOptions = {}): Discovery {
  const problems: DiscoveryProblem[] = [];
  const ignoredExplicit: string[] = [];
  const ignore = options.ignore;
  /** Path → named on the command line. */
  const files = new Map<string, boolean>();
  const visitedDirs = new Set<string>();

  /**
   * `real` is the directory's real path when known: a plain subfolder's is
   * its parent's real path plus its name, so only a folder reached through
   * a symbolic link (the only way to loop) costs a realpath lookup.
   */
  /** Real paths of the files found, to read a file reached by two paths once. */
  const realFiles = new Set<string>();
  /** Symbolic links to files, resolved once every plain file is known. */
  const linkedFiles: string[] = [];
  /** Files found by the walk of the current command-line input, and those of them ignorePatterns leave out. */
  let found = 0;
  let ignoredFound = 0;

  const walk = (dir: string, explicit: boolean, knownReal: string | undefined, inputRoot: string): void => {
    let real = knownReal;
    if (real === undefined) {
      try {
        real = fs.realpathSync(dir);
      } catch (error) {
        problems.push({ path: dir, message: describeFsError(error, dir), explicit });
        return;
      }
    }
    if (visitedDirs.has(real)) {
      if (!explicit) problems.push({ path: dir, message: `${dir}: skipped, a symbolic link to ${real}, which is already being checked`, explicit });
      return;
    }
    visitedDirs.add(real);
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      problems.push({ path: dir, message: describeFsError(error, dir), explicit });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const child = path.join(dir, entry.name);
      if (entry.name === 'node_modules' || entry.name === '.git' || entry.name === 'tool-results') continue;
      let kind: { isDirectory: boolean; isFile: boolean };
      try {
        kind = kindOf(entry, child);
      } catch (error) {
        problems.push({ path: child, message: describeFsError(error, child), explicit: false });
        continue;
      }
      if (kind.isDirectory) {
        if (ignore?.(child, true, inputRoot) === true) {
          ignoredFound++;
          continue;
        }
        if (entry.name.endsWith('.jsonl')) {
          problems.push({ path: child, message: `${child}: is a directory, not a transcript; skipped`, explicit: false });
        }
        walk(child, false, entry.isSymbolicLink() ? undefined : path.join(real, entry.name), inputRoot);
      } else if (kind.isFile && isTranscriptName(entry.name)) {
        if (ignore?.(child, false, inputRoot) === true) {
          ignoredFound++;
          continue;
        }
        found++;
        if (entry.isSymbolicLink()) {
          linkedFiles.push(child);
        } else {
          realFiles.add(path.join(real, entry.name));
          if (!files.has(child)) files.set(child, false);
        }
      } else if (!kind.isFile && isTranscriptName(entry.name) && ignore?.(child, false, inputRoot) !== true) {
        problems.push({ path: child, message: `${child}: not a regular file (a named pipe, a device or a socket); skipped`, explicit: false });
      }
    }
  };

  for (const input of inputs) {
    const absolute = path.resolve(cwd, input);
    let st: fs.Stats;
    try {
      st = fs.statSync(absolute);
    } catch (error) {
      problems.push({ path: input, message: describeFsError(error, input), explicit: true });
      continue;
    }
    if (st.isDirectory()) {
      found = 0;
      ignoredFound = 0;
      const walkedBefore = visitedDirs.size;
      walk(absolute, true, undefined, absolute);
      // A folder an earlier input already walked is no empty folder.
      if (found === 0 && visitedDirs.size > walkedBefore) {
        const message =
          ignoredFound > 0
            ? `every session file under ${input} is left out by ignorePatterns in the config`
            : `no session file found under ${input}`;
        problems.push({ path: input, message, explicit: true });
      }
    } else if (st.isFile()) {
      if (ignore?.(absolute, false, path.dirname(absolute)) === true) {
        ignoredExplicit.push(input);
        continue;
      }
      try {
        fs.accessSync(absolute, fs.constants.R_OK);
        files.set(absolute, true);
        realFiles.add(fs.realpathSync(absolute));
      } catch (error) {
        problems.push({ path: input, message: describeFsError(error, input), explicit: true });
      }
    } else {
      problems.push({ path: input, message: `${input}: not a regular file or folder`, explicit: true });
    }
  }

  for (const link of linkedFiles) {
    let realFile: string;
    try {
      realFile = fs.realpathSync(link);
    } catch (error) {
      problems.push({ path: link, message: describeFsError(error, link), explicit: false });
      continue;
    }
    if (realFiles.has(realFile)) {
      problems.push({ path: link, message: `${link}: skipped, a symbolic link to ${realFile}, which is already being checked`, explicit: false });
      continue;
    }
    realFiles.add(realFile);
    if (!files.has(link)) files.set(link, false);
  }

  const grouped = groupFiles(files, cwd, options.groupLegacyAgents ?? true);
  const walked = (dir: string): boolean => {
    try {
      return visitedDirs.has(fs.realpathSync(dir));
    } catch {
      return false;
    }
  };
  // A file named alone is still read with its folder around it: a parent
  // it names may be in another session of the folder (a continued or copied
  // conversation), as when the folder is named. The other transcripts are
  // listed for those lookups (and the cache's key), not linted.
  for (const [projectDir, list] of grouped.projectFiles) {
    if (walked(projectDir)) continue; // a folder walked lists them all already
    const known = new Set(list);
    for (const sibling of folderTranscripts(projectDir, ignore)) if (!known.has(sibling)) list.push(sibling);
    list.sort();
  }
  return { ...grouped, problems, ignoredExplicit };
}

/**
 * The transcripts of a project folder, as a walk of it would find them: its
 * `*.jsonl` files and its sessions' `subagents/*.jsonl`, a link to a file
 * included (the walk reads through it too). Only read, for lookups; a
 * folder that cannot be read lists nothing.
 */
function folderTranscripts(projectDir: string, ignore: PathFilter | undefined): string[] {
  const out: string[] = [];
  const entries = (dir: string): fs.Dirent[] => {
    try {
      return fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return [];
    }
  };
  const isFile = (file: string, entry: fs.Dirent): boolean => {
    try {
      return kindOf(entry, file).isFile;
    } catch {
      return false;
    }
  };
  const take = (dir: string, entry: fs.Dirent): void => {
    const file = path.join(dir, entry.name);
    if (isTranscriptName(entry.name) && isFile(file, entry) && ignore?.(file, false, projectDir) !== true) out.push(file);
  };
  for (const entry of entries(projectDir)) {
    if (entry.isDirectory()) {
      const subagents = path.join(projectDir, entry.name, 'subagents');
      for (const agent of entries(subagents)) take(subagents, agent);
    } else take(projectDir, entry);
  }
  return out;
}

function groupFiles(
  named: ReadonlyMap<string, boolean>,
  cwd: string,
  groupLegacyAgents: boolean,
): { groups: SessionGroup[]; projectFiles: Map<string, string[]> } {
  const byKey = new Map<string, { projectDir: string; sessionId: string | undefined; files: SessionFile[] }>();
  const projectFiles = new Map<string, string[]>();
  const standalone: SessionGroup[] = [];
  for (const file of [...named.keys()].sort()) {
    const info = { ...classifyPath(file, cwd), explicit: named.get(file) === true };
    const list = projectFiles.get(info.projectDir);
    if (list === undefined) projectFiles.set(info.projectDir, [file]);
    else list.push(file);
    let sessionId = info.layoutSessionId;
    if (info.role === 'legacy-agent') sessionId = groupLegacyAgents ? peekSessionId(file) : undefined;
    if (sessionId === undefined || info.role === 'other') {
      // Ungrouped: an 'other' file, or an old flat agent file left for the
      // linker to relate to its main session.
      standalone.push({ projectDir: info.projectDir, sessionId: undefined, files: [info] });
      continue;
    }
    const key = `${info.projectDir}\u0000${sessionId}`;
    const group = byKey.get(key);
    if (group === undefined) byKey.set(key, { projectDir: info.projectDir, sessionId, files: [info] });
    else group.files.push(info);
  }
  const groups: SessionGroup[] = [...byKey.values(), ...standalone];
  // Main file first inside a group, then by path; groups by their first path.
  for (const g of groups) {
    (g.files as SessionFile[]).sort((a, b) =>
      a.role === 'main' ? -1 : b.role === 'main' ? 1 : a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
    );
  }
  groups.sort((a, b) => ((a.files[0]?.path ?? '') < (b.files[0]?.path ?? '') ? -1 : 1));
  return { groups, projectFiles };
}

/** One line naming the path and what went wrong, without a stack. */
export function describeFsError(error: unknown, shown: string): string {
  return `${shown}: ${fsErrorReason(error, shown)}`;
}

/** What went wrong with a path, in words, without the path (see {@link describeFsError}). */
export function fsErrorReason(error: unknown, shown = ''): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return hasUndecodableName(shown) ? UNDECODABLE_NAME : 'no such file or folder';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'too many levels of symbolic links (a link loop)';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'a part of the path is not a folder';
    case 'EFTYPE':
      return 'not a regular file';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
