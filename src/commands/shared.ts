/**
 * Option parsing, input resolution, config, linting of the inputs and report
 * output shared by the commands that read transcripts (check, fix, sessions,
 * tree, show).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { InvalidArgumentError } from 'commander';
import { type PathFilter, type ResolvedConfig, applyRuleFlags, ignoreFilter, loadConfig } from '../core/config.js';
import { type Discovery, type DiscoverOptions, defaultProjectsRoot, discover, fsErrorReason } from '../core/discovery.js';
import { PathError, UsageError } from '../core/errors.js';
import type { LintOptions } from '../engine/linter.js';
import { removeIfAbandoned, writeAll, writeAtomically } from '../core/atomic-write.js';
import { openCache } from '../engine/cache.js';
import { lintGroups, startLintThreads } from '../engine/parallel.js';
import { countBySeverity, type FileResult } from '../core/types.js';
import type { CommitOptions } from '../repair/options.js';
import type { FsPort } from '../repair/fs-port.js';
import type { Decider } from '../repair/types.js';
import { shellCommand } from '../shell-word.js';
import { REPOSITORY_URL, ruleDocsUrl, VERSION } from '../version.js';
import type { FormatContext } from '../formatters/types.js';
import type { FormatterName } from '../formatters/index.js';
import { ruleDocumentation } from './rules.js';
import { escapeForTerminal } from '../escape.js';
import type { Io } from '../io.js';
import { RULES, RULES_BY_ID } from '../rules/index.js';
import { countText } from '../core/count-text.js';

/**
 * One `cclint: …` line on stderr. Notes name paths and values found on disk,
 * so the text is escaped for the terminal and can never span two lines.
 */
export function note(io: Io, message: string): void {
  io.stderr.write(`cclint: ${escapeForTerminal(message)}\n`);
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number of 0 or more');
  return n;
}

/** The paths to read: those given, else the local Claude Code projects root. */
export function resolveInputs(paths: readonly string[], io: Io): { inputs: string[]; usingDefault: boolean } {
  if (paths.length > 0) return { inputs: [...paths], usingDefault: false };
  const root = defaultProjectsRoot(io.env);
  if (!fs.existsSync(root)) {
    throw new PathError(
      `no Claude Code projects folder at ${root}; pass a path, or set CLAUDE_CONFIG_DIR to your Claude Code config folder`,
    );
  }
  // Named by no one, the default is a folder or nothing: a plain file there is no projects root to read as a transcript.
  if (!isFolder(root)) {
    throw new PathError(`the Claude Code projects folder ${root} is not a folder; pass a path, or set CLAUDE_CONFIG_DIR to your Claude Code config folder`);
  }
  return { inputs: [root], usingDefault: true };
}

/** What the config files and `--rule` flags decide for a run. */
export interface RunConfig {
  readonly lint: LintOptions;
  /** The config's `ignorePatterns`, for discovery; undefined when there are none. */
  readonly ignore: PathFilter | undefined;
  readonly config: ResolvedConfig & { readonly only: ReadonlySet<string> | undefined };
}

export function runConfig(io: Io, configPath: string | undefined, ruleFlags: readonly string[]): RunConfig {
  const known = new Set(RULES_BY_ID.keys());
  const config = applyRuleFlags(loadConfig(configPath, io.cwd, known, io.env), ruleFlags, known);
  return { lint: { rules: RULES, severities: config.rules, only: config.only }, ignore: ignoreFilter(config.ignorePatterns), config };
}

/**
 * Finds the session files under `inputs` and says on stderr, one line each,
 * which named files `ignorePatterns` left out and which paths could not be
 * read. `unreadableExplicit`: a path named on the command line could not be
 * read, which makes the run exit 2.
 */
export function discoverInputs(
  io: Io,
  inputs: readonly string[],
  options: DiscoverOptions,
): { discovery: Discovery; unreadableExplicit: boolean } {
  const discovery = discover(inputs, io.cwd, options);
  reportIgnored(io, discovery.ignoredExplicit);
  let unreadableExplicit = false;
  for (const problem of discovery.problems) {
    note(io, problem.message);
    if (problem.explicit) unreadableExplicit = true;
  }
  return { discovery, unreadableExplicit };
}

/** What {@link lintInputs} found. */
export interface LintedInputs {
  readonly discovery: Discovery;
  /** Every file's result, in path order. */
  readonly results: FileResult[];
  /** A path named on the command line could not be read (exit 2). */
  readonly unreadableExplicit: boolean;
}

/**
 * Discovers the session files under `inputs` and lints them as `check`
 * does: on worker threads when a folder is named (started now, so they get
 * ready while the folder is walked; lintGroups stops them if the input is
 * small), with the cache under `--cache` (then threads start only once the
 * folders to read are known). Files that could not be read are noted in
 * path order, whatever order the threads finished in.
 */
export async function lintInputs(
  io: Io,
  inputs: readonly string[],
  how: {
    readonly lint: LintOptions;
    readonly discover: DiscoverOptions;
    /** The cache's namespace under `--cache`, else undefined. */
    readonly cache: string | undefined;
    /** What the progress line says the run is doing to the sessions (see {@link sessionProgress}). */
    readonly verb: string;
  },
): Promise<LintedInputs> {
  const cache = how.cache === undefined ? undefined : openCache(io.env, io.cwd, defaultProjectsRoot(io.env), inputs, how.lint, how.cache);
  const threads = cache === undefined && inputs.some((input) => isFolder(path.resolve(io.cwd, input))) ? startLintThreads(io.env) : undefined;
  const { discovery, unreadableExplicit: namedUnreadable } = discoverInputs(io, inputs, how.discover);
  let unreadableExplicit = namedUnreadable;
  const progress = sessionProgress(io, how.verb, discovery.groups.length);
  const run = await lintGroups(discovery.groups, discovery.projectFiles, how.lint, (done) => progress.step(done), { env: io.env, threads, cache });
  progress.clear();
  const byPath = <T>(pathOf: (item: T) => string) => (a: T, b: T): number =>
    pathOf(a) < pathOf(b) ? -1 : pathOf(a) > pathOf(b) ? 1 : 0;
  for (const failure of run.failures.sort(byPath((f) => f.path))) {
    note(io, failure.message);
    if (failure.explicit) unreadableExplicit = true;
  }
  return { discovery, results: run.results.sort(byPath((r) => r.filePath)), unreadableExplicit };
}

/** Says on stderr which named files `ignorePatterns` left out, as ESLint does. */
export function reportIgnored(io: Io, ignored: readonly string[]): void {
  for (const file of ignored) note(io, `${file}: ignored by ignorePatterns in the config; not checked`);
}

/** A status line on a terminal's stderr. */
export interface ProgressLine {
  /** Shows `text()` (asked only when shown), at most a few times a second. */
  update(text: () => string): void;
  /** Clears the line (before other output; a later update shows it again). */
  done(): void;
}

/** Updates one status line on a terminal's stderr, at most a few times a second; nothing elsewhere. */
export function progressLine(io: Io): ProgressLine {
  if (!io.stderr.isTTY) return { update: () => undefined, done: () => undefined };
  let last = 0;
  let shown = false;
  return {
    update(text) {
      const now = Date.now();
      if (now - last < 200) return;
      last = now;
      shown = true;
      const width = Math.max(20, (io.stderr.columns ?? 80) - 1);
      io.stderr.write(`\r\u001b[2K${text().slice(0, width)}`);
    },
    done() {
      if (shown) io.stderr.write('\r\u001b[2K');
      shown = false;
    },
  };
}

/**
 * The progress line of every command that goes through sessions (`check`,
 * `sessions`, `fix`, `search`, `report`): `step(n)` shows
 * `cclint: <verb> n of total sessions…` (`of`: a total that changed);
 * `clear()` before anything else is written to the terminal. Not shown
 * when `show` is false (a command that asks questions on the terminal).
 */
export function sessionProgress(io: Io, verb: string, total: number, show = true): { step(n: number, of?: number): void; clear(): void } {
  const line: ProgressLine = show ? progressLine(io) : { update: () => undefined, done: () => undefined };
  return {
    step: (n, of = total) => line.update(() => `cclint: ${verb} ${countText(n)} of ${countText(of)} sessions…`),
    clear: () => line.done(),
  };
}

/**
 * Writes a file a flag names (a report, a baseline), creating its folder.
 * A folder in its place, or a write that fails, is exit 2 with the reason.
 * A `.jsonl` path is refused: it could be a transcript (one slip in the
 * command line would overwrite a conversation), and a new one would be
 * read as a transcript by the next run.
 */
export function writeFileFor(flag: string, file: string, text: string | Iterable<string>): void {
  checkWritableTarget(flag, file);
  const blocker = fileOnTheWay(path.dirname(file));
  if (blocker !== undefined) throw new PathError(`${flag}: ${blocker} is a file, not a folder; give another path`);
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeWhole(file, typeof text === 'string' ? [text] : text);
  } catch (error) {
    // The flag names the file already.
    throw new PathError(`${flag}: ${fsErrorReason(error, file)}`);
  }
}

/**
 * Writes `pieces` to `file` so that nobody finds half of them (a reader, or
 * the next run after a Ctrl-C, which ends a read-only command at once): into
 * a hidden temporary file beside it, renamed over it, the old file's mode
 * kept; the temporary files of the same file that a run ended meanwhile
 * left are removed once an hour old. A path that is there but is not a regular file (a symbolic link,
 * `/dev/stdout`, a named pipe) is written through, as `>` would: renaming
 * over it would replace the link or the device.
 */
function writeWhole(file: string, pieces: Iterable<string>): void {
  let existing: fs.Stats | undefined;
  try {
    existing = fs.lstatSync(file);
  } catch {
    existing = undefined;
  }
  const through = (): void => {
    const fd = fs.openSync(file, 'w');
    try {
      for (const piece of pieces) writeAll(fd, piece);
    } finally {
      fs.closeSync(fd);
    }
  };
  if (existing !== undefined && !existing.isFile()) return through();
  // Hidden, and never `.jsonl`: nothing takes a leftover for a report or a transcript.
  const temporary = path.join(path.dirname(file), `${temporaryPrefix(file)}${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`);
  const keepMode = existing === undefined ? undefined : existing.mode & 0o7777;
  let started = false;
  try {
    writeAtomically(
      file,
      (write) => {
        started = true;
        for (const piece of pieces) write(piece);
      },
      { temporary, mode: 0o666, keepMode },
    );
  } catch (error) {
    // A file that may be written in a folder that may not be (no temporary file could be made there): written through, as before.
    const code = (error as NodeJS.ErrnoException).code;
    if (started || existing === undefined || !(code === 'EACCES' || code === 'EPERM' || code === 'EROFS')) throw error;
    return through();
  }
  removeLeftovers(file);
}

/** How the temporary files of {@link writeWhole} for `file` are named, up to their process and random parts. */
function temporaryPrefix(file: string): string {
  return `.${path.basename(file)}.cclint-`;
}

/** Deletes the temporary files an earlier write of `file` left behind, once they are an hour old. */
function removeLeftovers(file: string): void {
  const prefix = temporaryPrefix(file);
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && /^\d+-[0-9a-f]{8}\.tmp$/.test(name.slice(prefix.length))) removeIfAbandoned(path.join(path.dirname(file), name));
  }
}

/**
 * The checks of {@link writeFileFor} that need no writing, for a command to
 * make before its scan. `inputs`: the paths the run reads (resolved), none
 * of which the output may be, whatever its name (`-o notes.txt notes.txt`
 * would replace the transcript being read with the report).
 */
export function checkWritableTarget(flag: string, file: string, inputs: readonly string[] = []): void {
  if (isJsonlName(file)) {
    throw new UsageError(`${flag}: will not write a .jsonl file, which could be a transcript; give another name`);
  }
  // A symbolic link is written through (as `>` would), so where it lands is
  // what must not be a transcript: `out.html -> session.jsonl` overwrote one.
  const lands = landingPath(file);
  if (lands !== file && isJsonlName(lands)) {
    throw new UsageError(
      `${flag}: is a symbolic link to ${lands}, a .jsonl file, which could be a transcript; cclint will not write through it; give another name`,
    );
  }
  if (isFolder(file)) throw new UsageError(`${flag}: is a folder; give a file path`);
  const input = inputs.find((p) => sameFile(p, file));
  if (input !== undefined) throw new UsageError(`${flag}: is ${input}, which this run reads; give another name`);
}

/**
 * {@link checkWritableTarget} for a command's `--output-file` (when given),
 * against the paths on its command line.
 */
export function checkOutputFile(io: Io, outputFile: string | undefined, paths: readonly string[]): void {
  if (outputFile === undefined) return;
  checkWritableTarget(`--output-file ${outputFile}`, path.resolve(io.cwd, outputFile), paths.map((p) => path.resolve(io.cwd, p)));
}

/** The nearest existing path at or above `folder`, when it is not a folder (mkdir -p would fail there with EEXIST or ENOTDIR). */
function fileOnTheWay(folder: string): string | undefined {
  for (let current = folder; ; current = path.dirname(current)) {
    let st: fs.Stats;
    try {
      st = fs.statSync(current);
    } catch {
      if (path.dirname(current) === current) return undefined;
      continue;
    }
    return st.isDirectory() ? undefined : current;
  }
}

/** Whether two paths name one file (links followed); false when either cannot be read. */
function sameFile(a: string, b: string): boolean {
  try {
    const x = fs.statSync(a);
    const y = fs.statSync(b);
    return x.dev === y.dev && x.ino === y.ino;
  } catch {
    return false;
  }
}

function isJsonlName(file: string): boolean {
  return file.toLowerCase().endsWith('.jsonl');
}

/** Symbolic links followed this many times at most, as the kernel does (ELOOP). */
const MAX_LINK_HOPS = 40;

/**
 * The path that writing `file` opens in the end: the last link of its chain
 * of symbolic links (the path itself when it is none). A dangling link
 * counts too: opening it for writing creates its target.
 */
function landingPath(file: string): string {
  let current = file;
  for (let hop = 0; hop < MAX_LINK_HOPS; hop++) {
    let target: string;
    try {
      target = fs.readlinkSync(current);
    } catch {
      return current; // not a link, or not there
    }
    // From the folder the link really sits in: a `..` in its target climbs
    // from there, not from the path's text (`out/L/r.txt -> ../q.txt` with
    // `L` itself a link lands beside L's target, not in `out`).
    current = path.resolve(realFolder(path.dirname(current)), target);
  }
  return current;
}

/** The folder's path with every link resolved, or the path as given when it cannot be (it is not there). */
function realFolder(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return folder;
  }
}

/** Whether a path is a folder (a path that cannot be read is not: discovery reports it). */
export function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/**
 * A report goes to `--output-file` when given (ESLint's `-o`), else to
 * stdout; a big one comes in pieces, written as they come.
 */
export function writeReport(io: Io, text: string | Iterable<string>, outputFile: string | undefined): void {
  const pieces = typeof text === 'string' ? [text] : batched(text);
  if (outputFile === undefined) {
    for (const piece of pieces) io.stdout.write(piece);
  } else {
    writeFileFor(`--output-file ${outputFile}`, path.resolve(io.cwd, outputFile), pieces);
  }
}

/** Small pieces joined into writes of about 64 KB: one write per finding would be one system call per finding. */
function* batched(pieces: Iterable<string>): Generator<string> {
  let pending: string[] = [];
  let size = 0;
  for (const piece of pieces) {
    pending.push(piece);
    size += piece.length;
    if (size >= 64 * 1024) {
      yield pending.join('');
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) yield pending.join('');
}

/** The write flags `fix` and `rename` share. */
export interface WriteFlags {
  readonly backupDir?: string | undefined;
  readonly auditLog?: string | undefined;
  readonly force?: boolean | undefined;
}

/**
 * The writer's options for a command's run: the run's environment and
 * working folder, the default projects root, the write flags. State goes
 * where `$CCLINT_HOME` (or `--backup-dir`, `--audit-log`) puts it.
 */
export function writeOptions(io: Io, fs: FsPort, flags: WriteFlags, decidedBy: Decider, extra: Pick<CommitOptions, 'keepMtime'> = {}): CommitOptions {
  return {
    fs,
    env: io.env,
    cwd: io.cwd,
    projectsRoot: defaultProjectsRoot(io.env),
    backupDir: flags.backupDir,
    auditLog: flags.auditLog,
    force: flags.force === true,
    decidedBy,
    version: VERSION,
    now: io.now ?? Date.now,
    ...extra,
  };
}

/**
 * The command that undoes an audited write, as a person would paste it:
 * with `--audit-log` and `--backup-dir` when they were given (restore finds
 * the entry in that log, and refuses a backup outside the folder it is told).
 */
export function undoCommand(auditId: string, flags: Pick<WriteFlags, 'auditLog' | 'backupDir'>): string {
  return escapeForTerminal(
    shellCommand([
      'cclint',
      'restore',
      auditId,
      ...(flags.auditLog === undefined ? [] : ['--audit-log', flags.auditLog]),
      ...(flags.backupDir === undefined ? [] : ['--backup-dir', flags.backupDir]),
    ]),
  );
}

/**
 * What a report formatter is given for `format` (check's, and fix
 * --dry-run's): only SARIF embeds the rules' pages, which the other formats
 * need not read.
 */
export function formatContextFor(
  io: Io,
  format: FormatterName,
  color: boolean,
  extra: Pick<FormatContext, 'unreadableInputs' | 'maxWarningsExceeded'> = {},
): FormatContext {
  return {
    cwd: io.cwd,
    color,
    rulesMeta: new Map(RULES.map((r) => [r.meta.id, r.meta])),
    version: VERSION,
    informationUri: REPOSITORY_URL,
    ruleHelp:
      format === 'sarif' ? new Map(RULES.map((r) => [r.meta.id, { uri: ruleDocsUrl(r.meta.id), markdown: ruleDocumentation(r.meta.id) }])) : undefined,
    ...extra,
  };
}

/** Keeps findings at or above a level; counts follow what is shown (`--quiet`: errors only). */
export function keepAtLeast(results: readonly FileResult[], level: 'error' | 'warning'): FileResult[] {
  return results.map((r) => {
    const findings = r.findings.filter((f) => f.severity === 'error' || (level === 'warning' && f.severity === 'warning'));
    return { ...r, findings, ...countBySeverity(findings) };
  });
}
