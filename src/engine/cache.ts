/**
 * `--cache`: what a run learnt about a project folder, kept under
 * `$CCLINT_HOME/cache/` so that the next run does not read it again while
 * nothing in it changed.
 *
 * The unit is the project folder, the unit of linting: a record's parent may
 * sit in any file of its folder (its main session, another subagent, a
 * continuation copy), so a file's findings depend on the other files of the
 * folder. An entry is used only when every file of the folder is as it was
 * (path, size, inode, modification and change times) and the folder's
 * listing of `*.jsonl` names is too (a subagent's main session file that
 * appears or goes away); any difference and the whole folder is read and
 * linted again, then stored anew. A cross-file fact is thereby invalidated
 * when either side changes.
 *
 * A file modified within {@link RACY_MS} of the moment it was looked at may
 * change again within the same tick of the file system's clock without its
 * times moving (git's "racily clean" entries): such a file's entry also
 * keeps a SHA-1 of the bytes that were read, and is used only when the file
 * still hashes the same.
 *
 * An entry is stamped with the cache format, the cclint and V8 versions and
 * a hash of the rules and their configured severities; another stamp is a
 * miss. The file is written atomically (a temporary file renamed over it),
 * mode 0600 in a 0700 folder, and carries a SHA-256 of its payload: a file
 * that does not match is corrupt, is ignored with a warning and is
 * replaced. Deleting the folder is always safe.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import writeFileAtomic from 'write-file-atomic';
import type { SessionGroup } from '../core/discovery.js';
import type { ByteSource } from '../core/reader.js';
import { fileSource } from '../core/reader.js';
import { type LineObserver, type SessionFile, SessionIndex } from '../core/session-index.js';
import { UsageError } from '../core/errors.js';
import type { FileResult, Fix } from '../core/types.js';
import { VERSION } from '../version.js';
import type { LintOptions, ReadFailure } from './linter.js';

/** Bump when the layout of an entry changes. */
export const CACHE_FORMAT = 2;

/** A file modified this recently may change again without its times moving. */
export const RACY_MS = 2000;

const MAGIC = 'cclint-cache\n';

/** Where the cache lives and the stamp its entries must carry: plain data, for worker threads too. */
export interface CacheConfig {
  readonly dir: string;
  readonly stamp: string;
  /** {@link RACY_MS}; tests lower it to reach the path where only times are compared. */
  readonly racyMs: number;
  /**
   * Whose entries these are (`check`, `sessions`, `search`…), in their file
   * names, so that two commands keep their own entries instead of replacing
   * each other's.
   */
  readonly namespace: string;
}

/** `$CCLINT_HOME`, else `<HOME>/.cclint`. */
export function cclintHomeOf(env: NodeJS.ProcessEnv, cwd: string): string {
  const configured = env.CCLINT_HOME;
  if (configured !== undefined && configured !== '') return path.resolve(cwd, configured);
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
  return path.join(home, '.cclint');
}

function realish(p: string): string {
  // The deepest existing ancestor's real path plus the rest: a folder that
  // does not exist yet may still lie, through a link, inside another.
  const resolved = path.resolve(p);
  let head = resolved;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...rest.reverse());
    } catch {
      const parent = path.dirname(head);
      if (parent === head) return resolved;
      rest.push(path.basename(head));
      head = parent;
    }
  }
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(realish(parent), realish(child));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * When this module's file was written: a new build of the same version (a
 * development checkout after `npm run build`) must not trust what an older
 * build stored.
 */
function buildTime(): string {
  try {
    return String(fs.statSync(fileURLToPath(import.meta.url)).mtimeMs);
  } catch {
    return 'unknown';
  }
}

/**
 * The stamp of a run's entries: cache format, cclint version, the build, V8 version
 * (the payload is V8's serialisation), the rules that run and every
 * configured severity.
 */
export function cacheStamp(lint: LintOptions, namespace: string): string {
  const rules = lint.rules.map((r) => r.meta.id).sort();
  const severities = [...lint.severities].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const only = lint.only === undefined ? null : [...lint.only].sort();
  const text = JSON.stringify([CACHE_FORMAT, VERSION, buildTime(), process.versions.v8, namespace, rules, severities, only]);
  return crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * The cache of one run, or a usage error when its folder would sit inside
 * the projects root or a folder being checked (Claude Code, or the next
 * run, would find it there).
 */
export function openCache(
  env: NodeJS.ProcessEnv,
  cwd: string,
  projectsRoot: string,
  inputs: readonly string[],
  lint: LintOptions,
  namespace: string,
): CacheConfig {
  const dir = path.join(cclintHomeOf(env, cwd), 'cache');
  for (const around of [projectsRoot, ...inputs.map((i) => path.resolve(cwd, i))]) {
    if (isInside(dir, around)) {
      throw new UsageError(
        `--cache: refusing to keep the cache at ${dir}: it is inside ${around}, which is being checked or is the Claude Code projects folder; set CCLINT_HOME to a folder outside it`,
      );
    }
  }
  return { dir, stamp: cacheStamp(lint, namespace), racyMs: RACY_MS, namespace };
}

/** What identifies one file's content without reading it. */
interface FileKey {
  readonly path: string;
  readonly size: string;
  readonly ino: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
  /** Modified within RACY_MS of being looked at: the SHA-1 of the bytes read is kept too. */
  readonly racy: boolean;
}

interface FolderKey {
  readonly projectDir: string;
  readonly files: readonly FileKey[];
  /** The `*.jsonl` names directly in the project folder (main sessions a subagent may look for). */
  readonly listing: readonly string[];
  /** What else the entry's value depends on (the working folder, for display paths). */
  readonly extra: string;
}

interface Entry<T> {
  readonly key: FolderKey;
  /** Path → SHA-1 of the bytes read, for racy files. */
  readonly hashes: Readonly<Record<string, string>>;
  readonly value: T;
}

function keyOf(projectDir: string, files: readonly string[], extra: string, racyMs: number, withListing = true): FolderKey | undefined {
  try {
    // The clock gives milliseconds, the file system nanoseconds: take the end
    // of the current millisecond, so a file changed within it is not seen as
    // changed in the future (racy even with no window).
    const now = (BigInt(Date.now()) + 1n) * 1_000_000n;
    const window = BigInt(racyMs) * 1_000_000n;
    const keys = files.map((file): FileKey => {
      const st = fs.statSync(file, { bigint: true });
      return {
        path: file,
        size: String(st.size),
        ino: String(st.ino),
        mtimeNs: String(st.mtimeNs),
        ctimeNs: String(st.ctimeNs),
        // The change time moves with every write, and with every change of the times.
        racy: now - st.ctimeNs < window,
      };
    });
    let listing: string[] = [];
    try {
      if (withListing) listing = fs.readdirSync(projectDir).filter((n) => n.endsWith('.jsonl')).sort();
    } catch {
      listing = [];
    }
    return { projectDir, files: keys, listing, extra };
  } catch {
    return undefined; // a file that cannot be looked at is reported by the linter; nothing is cached
  }
}

/** The same files with the same times, racy or not. */
function sameKey(a: FolderKey, b: FolderKey): boolean {
  const plain = (k: FolderKey): string => JSON.stringify({ ...k, files: k.files.map((f) => ({ ...f, racy: false })) });
  return plain(a) === plain(b);
}

function hashFile(file: string): string | undefined {
  try {
    const hash = crypto.createHash('sha1');
    const source = fileSource(file);
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    let position = 0;
    try {
      for (;;) {
        const n = source.read(buffer, 0, buffer.length, position);
        if (n === 0) break;
        hash.update(buffer.subarray(0, n));
        position += n;
      }
    } finally {
      source.close();
    }
    return hash.digest('hex');
  } catch {
    return undefined;
  }
}

function entryPath(config: CacheConfig, projectDir: string, extra: string): string {
  const id = crypto.createHash('sha256').update(`${projectDir}\u0000${extra}`).digest('hex').slice(0, 40);
  return path.join(config.dir, `${config.namespace}-${id}.bin`);
}

type Loaded<T> = { readonly entry: Entry<T> } | { readonly miss: true; readonly warning?: string };

function readEntry<T>(file: string, stamp: string): Loaded<T> {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { miss: true };
    return { miss: true, warning: `cache file ${file} cannot be read (${(error as Error).message}); ignored` };
  }
  const corrupt = (why: string): Loaded<T> => ({ miss: true, warning: `cache file ${file} is corrupt (${why}); ignored and written again` });
  if (!bytes.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC))) return corrupt('not a cclint cache file');
  const headerEnd = bytes.indexOf(0x0a, MAGIC.length);
  if (headerEnd === -1) return corrupt('no header');
  let header: { stamp?: unknown; sha256?: unknown; length?: unknown };
  try {
    header = JSON.parse(bytes.toString('utf8', MAGIC.length, headerEnd)) as typeof header;
  } catch {
    return corrupt('unreadable header');
  }
  if (header === null || typeof header !== 'object') return corrupt('unreadable header');
  if (header.stamp !== stamp) return { miss: true }; // another version or configuration: not an error
  const payload = bytes.subarray(headerEnd + 1);
  if (header.length !== payload.length) return corrupt('truncated');
  if (header.sha256 !== crypto.createHash('sha256').update(payload).digest('hex')) return corrupt('checksum mismatch');
  let entry: unknown;
  try {
    entry = v8.deserialize(payload);
  } catch {
    return corrupt('undecodable payload');
  }
  const e = entry as Partial<Entry<T>> | null;
  if (e === null || typeof e !== 'object' || typeof e.key !== 'object' || e.key === null || !Array.isArray(e.key.files) || typeof e.hashes !== 'object') {
    return corrupt('unexpected shape');
  }
  return { entry: e as Entry<T> };
}

function writeEntry(config: CacheConfig, file: string, entry: Entry<unknown>): string | undefined {
  try {
    const payload = v8.serialize(entry);
    const header = JSON.stringify({ stamp: config.stamp, sha256: crypto.createHash('sha256').update(payload).digest('hex'), length: payload.length });
    fs.mkdirSync(config.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(config.dir, 0o700);
    writeFileAtomic.sync(file, Buffer.concat([Buffer.from(`${MAGIC}${header}\n`), payload]), { mode: 0o600, fsync: false });
    return undefined;
  } catch (error) {
    return `cache file ${file} cannot be written (${error instanceof Error ? error.message : String(error)}); going on without it`;
  }
}

/**
 * An index builder that hashes the bytes its first read goes through (the
 * scan that builds the index), for racy files.
 */
function hashingIndexer(hashes: Map<string, string>, racy: ReadonlySet<string>): (file: SessionFile, observer?: LineObserver) => SessionIndex {
  return (file, observer) => {
    if (!racy.has(file.path)) return SessionIndex.build(file, () => fileSource(file.path), observer);
    let first = true;
    return SessionIndex.build(file, () => {
      if (!first) return fileSource(file.path);
      first = false;
      const inner = fileSource(file.path);
      const hash = crypto.createHash('sha1');
      let next = 0;
      let sequential = true;
      const source: ByteSource = {
        get size() {
          return inner.size;
        },
        read(target, targetOffset, length, position) {
          const n = inner.read(target, targetOffset, length, position);
          if (position === next) {
            hash.update(target.subarray(targetOffset, targetOffset + n));
            next += n;
          } else sequential = false;
          return n;
        },
        close() {
          inner.close();
          if (sequential) hashes.set(file.path, hash.digest('hex'));
        },
      };
      return source;
    }, observer);
  };
}

/** What one folder lookup gives: the stored value, or how to compute and store a new one. */
export type FolderLookup<T> =
  | { readonly hit: T; readonly warning?: string | undefined }
  | {
      readonly hit?: undefined;
      readonly warning?: string | undefined;
      /** Builds indexes (hashing racy files as they are read). */
      readonly indexer: (file: SessionFile) => SessionIndex;
      /** Stores the value computed with `indexer`; returns a warning when it could not. */
      store(value: T): string | undefined;
    };

/**
 * Looks a project folder up. `files` are every transcript of the folder the
 * run reads; `extra` is anything else the value depends on.
 */
export function lookupFolder<T>(
  config: CacheConfig,
  projectDir: string,
  files: readonly string[],
  extra: string,
): FolderLookup<T> {
  const key = keyOf(projectDir, files, extra, config.racyMs);
  const file = entryPath(config, projectDir, extra);
  let warning: string | undefined;
  if (key !== undefined) {
    const loaded = readEntry<T>(file, config.stamp);
    if ('entry' in loaded) {
      const { entry } = loaded;
      // Racy files were stored with a hash; it must still match.
      if (sameKey(entry.key, key) && entry.key.files.every((f) => !f.racy || (entry.hashes[f.path] !== undefined && hashFile(f.path) === entry.hashes[f.path]))) {
        // Files that were racy and are settled now need no hashing next time.
        const settled = entry.key.files.some((f, i) => f.racy && key.files[i]?.racy === false);
        const problem = settled ? writeEntry(config, file, { key, hashes: entry.hashes, value: entry.value }) : undefined;
        return { hit: entry.value, warning: problem };
      }
    } else warning = loaded.warning;
  }
  const hashes = new Map<string, string>();
  const racy = new Set(key?.files.filter((f) => f.racy).map((f) => f.path) ?? []);
  return {
    warning,
    indexer: hashingIndexer(hashes, racy),
    store(value: T): string | undefined {
      if (key === undefined) return undefined;
      // A racy file whose bytes were not all hashed (never read whole) cannot be vouched for.
      if ([...racy].some((p) => !hashes.has(p))) return undefined;
      return writeEntry(config, file, { key, hashes: Object.fromEntries(hashes), value });
    },
  };
}

/** A result without fix edits (closures over a session index), which are neither stored nor needed by a report. */
export function plainResult(result: FileResult): FileResult {
  if (!result.findings.some((f) => f.fix !== undefined)) return result;
  return {
    ...result,
    findings: result.findings.map((f) =>
      f.fix === undefined ? f : { ...f, fix: { title: f.fix.title, applicability: f.fix.applicability } as Fix },
    ),
  };
}

/** One lint outcome as stored: results with absolute paths (display paths depend on the working folder). */
interface StoredOutcome {
  readonly results: FileResult[];
  readonly failures: ReadFailure[];
}

/**
 * The cached form of {@link lintFolder}: the folder's outcomes come from the
 * cache when nothing in it changed, else from `lint` (given the indexer to
 * use), and are then stored. Results must already be transferable (no fix
 * edits). A folder with a file that could not be read is not stored.
 */
export function lintFolderCached(
  config: CacheConfig,
  groups: readonly SessionGroup[],
  projectFiles: ReadonlyMap<string, readonly string[]>,
  emit: (outcome: StoredOutcome) => void,
  lint: (indexer: (file: SessionFile) => SessionIndex, emit: (outcome: StoredOutcome) => void) => void,
): void {
  const folder = folderOf(groups, projectFiles);
  if (folder === undefined) return;
  const lookup = lookupFolder<StoredOutcome[]>(config, folder.projectDir, folder.files, '');
  let warning = lookup.warning;
  const withWarning = (outcome: StoredOutcome): StoredOutcome => {
    if (warning === undefined) return outcome;
    const failures = [...outcome.failures, { path: folder.projectDir, message: warning, explicit: false }];
    warning = undefined;
    return { ...outcome, failures };
  };
  if (lookup.hit !== undefined) {
    for (const outcome of folder.shown(lookup.hit)) emit(withWarning(outcome));
    return;
  }
  const stored: StoredOutcome[] = [];
  let failed = false;
  lint(lookup.indexer, (outcome) => {
    if (outcome.failures.length > 0) failed = true;
    stored.push({ results: outcome.results.map((r) => ({ ...plainResult(r), filePath: folder.absolute.get(r.filePath) ?? r.filePath })), failures: outcome.failures });
    emit(withWarning(outcome));
  });
  if (!failed) {
    const problem = lookup.store(stored);
    if (problem !== undefined) {
      warning = problem;
      emit(withWarning({ results: [], failures: [] }));
    }
  }
}

/**
 * The outcomes of a folder in which nothing changed, from the cache alone;
 * undefined on a miss (no warning: the folder is then linted through
 * {@link lintFolderCached}, which says what was wrong with its entry). Lets
 * a run decide which folders need reading before it starts threads.
 */
export function cachedOutcomes(
  config: CacheConfig,
  groups: readonly SessionGroup[],
  projectFiles: ReadonlyMap<string, readonly string[]>,
): StoredOutcome[] | undefined {
  const folder = folderOf(groups, projectFiles);
  if (folder === undefined) return [];
  const lookup = lookupFolder<StoredOutcome[]>(config, folder.projectDir, folder.files, '');
  return lookup.hit === undefined || lookup.warning !== undefined ? undefined : folder.shown(lookup.hit);
}

function folderOf(groups: readonly SessionGroup[], projectFiles: ReadonlyMap<string, readonly string[]>) {
  const projectDir = groups[0]?.projectDir;
  if (projectDir === undefined) return undefined;
  const shown = new Map<string, string>();
  const absolute = new Map<string, string>();
  for (const g of groups) {
    for (const f of g.files) {
      shown.set(f.path, f.displayPath);
      absolute.set(f.displayPath, f.path);
    }
  }
  const files = [...(projectFiles.get(projectDir) ?? [...shown.keys()])].sort();
  return {
    projectDir,
    files,
    absolute,
    /** Stored outcomes with this run's display paths. */
    shown: (outcomes: readonly StoredOutcome[]): StoredOutcome[] =>
      outcomes.map((o) => ({ results: o.results.map((r) => ({ ...r, filePath: shown.get(r.filePath) ?? r.filePath })), failures: o.failures })),
  };
}

/**
 * A cache whose unit is the session group rather than the project folder,
 * for a command whose value of a group depends only on that group's files
 * (search): a session that grows invalidates itself, not its folder. The
 * entries of a folder's groups share one cache file, read once and written
 * once a run (by {@link GroupStore.save}). A value that did depend on other
 * files of its folder (a parent looked up elsewhere) is stored with the
 * folder's key as well, and used only while the whole folder is as it was.
 */
export interface GroupStore<T> {
  /**
   * The stored value of the group whose files are `files` (absolute paths,
   * at least one), or how to compute and store one. The files are looked at
   * now, before they are read.
   */
  lookup(projectDir: string, files: readonly string[]): GroupLookup<T>;
  /** Writes the folders whose entries changed; returns what could not be done. */
  save(): string[];
}

export type GroupLookup<T> =
  | { readonly hit: T }
  | {
      readonly hit?: undefined;
      /**
       * The files modified so recently that a value read from them is kept
       * only with the SHA-1 of the bytes read: read them through
       * {@link racyIndexer}, on any thread.
       */
      readonly racy: readonly string[];
      /**
       * Keeps the value computed from the group's files; `folderWide`: it
       * depends on other files of the folder too; `hashes`: what
       * {@link racyIndexer} collected (a racy file missing from it: not kept).
       */
      store(value: T, folderWide: boolean, hashes: ReadonlyMap<string, string>): void;
    };

/**
 * Indexes files, putting into `hashes` the SHA-1 of the bytes read of each
 * of the `racy` ones (when the index read it whole, in order).
 */
export function racyIndexer(racy: readonly string[], hashes: Map<string, string>): (file: SessionFile, observer?: LineObserver) => SessionIndex {
  return hashingIndexer(hashes, new Set(racy));
}

interface GroupEntry<T> {
  readonly files: readonly FileKey[];
  /** Set when the value depends on the whole folder: its key, and the SHA-1 of its racy files. */
  readonly folder: { readonly key: FolderKey; readonly hashes: Readonly<Record<string, string>> } | undefined;
  readonly hashes: Readonly<Record<string, string>>;
  readonly value: T;
}

interface FolderState<T> {
  readonly file: string;
  readonly entries: Map<string, GroupEntry<T>>;
  /** The folder as it was before this run read anything of it (only when values may be folder-wide). */
  readonly key: FolderKey | undefined;
  /**
   * The SHA-1 of the folder's racy files, taken before this run read any of
   * them, at the first lookup that misses (which a folder-wide value may
   * follow); undefined until then, or when one could not be read.
   */
  racyHashes: Readonly<Record<string, string>> | undefined;
  changed: boolean;
}

/** The SHA-1 of each racy file of a key; undefined when one cannot be read. */
function racyHashesOf(key: FolderKey): Record<string, string> | undefined {
  const hashes: Record<string, string> = {};
  for (const f of key.files) {
    if (!f.racy) continue;
    const hash = hashFile(f.path);
    if (hash === undefined) return undefined;
    hashes[f.path] = hash;
  }
  return hashes;
}

export function groupStore<T>(
  config: CacheConfig,
  projectFiles: ReadonlyMap<string, readonly string[]>,
  warn: (message: string) => void,
  /** Values may depend on the whole folder: its key is taken before anything of it is read. */
  folderWide: boolean,
): GroupStore<T> {
  const folders = new Map<string, FolderState<T>>();
  const folderOf = (projectDir: string): FolderState<T> => {
    let state = folders.get(projectDir);
    if (state !== undefined) return state;
    const file = entryPath(config, projectDir, '');
    const entries = new Map<string, GroupEntry<T>>();
    const loaded = readEntry<Record<string, GroupEntry<T>>>(file, config.stamp);
    if ('entry' in loaded) {
      const stored = loaded.entry.value;
      if (stored !== null && typeof stored === 'object') for (const [id, entry] of Object.entries(stored)) entries.set(id, entry);
    } else if (loaded.warning !== undefined) warn(loaded.warning);
    const all = [...(projectFiles.get(projectDir) ?? [])].sort();
    state = { file, entries, key: folderWide ? keyOf(projectDir, all, '', config.racyMs) : undefined, racyHashes: undefined, changed: false };
    folders.set(projectDir, state);
    return state;
  };
  const plain = (files: readonly FileKey[]): string => JSON.stringify(files.map((f) => ({ ...f, racy: false })));
  // The same files with the same times, and each file racy when stored hashes the same now as then.
  const sameFolder = (stored: NonNullable<GroupEntry<T>['folder']>, now: FolderKey): boolean =>
    sameKey(stored.key, now) && stored.key.files.every((f) => !f.racy || (stored.hashes[f.path] !== undefined && hashFile(f.path) === stored.hashes[f.path]));
  return {
    lookup(projectDir, files) {
      const folder = folderOf(projectDir);
      const sorted = [...files].sort();
      const id = sorted[0] as string;
      // A group's own files only: the folder's listing matters to a folder-wide value alone.
      const key = keyOf(projectDir, sorted, '', config.racyMs, false);
      const entry = folder.entries.get(id);
      if (
        entry !== undefined &&
        key !== undefined &&
        plain(entry.files) === plain(key.files) &&
        entry.files.every((f) => !f.racy || (entry.hashes[f.path] !== undefined && hashFile(f.path) === entry.hashes[f.path])) &&
        (entry.folder === undefined || (folder.key !== undefined && sameFolder(entry.folder, folder.key)))
      ) {
        return { hit: entry.value };
      }
      const racy = key?.files.filter((f) => f.racy).map((f) => f.path) ?? [];
      // Before anything of the folder is read for this value.
      if (folder.key !== undefined && folder.racyHashes === undefined) folder.racyHashes = racyHashesOf(folder.key);
      return {
        racy,
        store(value, wide, hashes) {
          if (key === undefined || racy.some((p) => !hashes.has(p))) return;
          let whole: GroupEntry<T>['folder'];
          if (wide) {
            // What other files of the folder said was read after the folder's key and hashes were taken.
            if (folder.key === undefined || folder.racyHashes === undefined) return;
            whole = { key: folder.key, hashes: folder.racyHashes };
          }
          folder.entries.set(id, { files: key.files, folder: whole, hashes: Object.fromEntries(hashes), value });
          folder.changed = true;
        },
      };
    },
    save() {
      const problems: string[] = [];
      for (const [projectDir, folder] of folders) {
        if (!folder.changed) continue;
        // Groups whose files are gone are dropped with the folder's next write.
        for (const [id, entry] of folder.entries) if (!entry.files.every((f) => fs.existsSync(f.path))) folder.entries.delete(id);
        const key: FolderKey = { projectDir, files: [], listing: [], extra: '' };
        const problem = writeEntry(config, folder.file, { key, hashes: {}, value: Object.fromEntries(folder.entries) });
        if (problem !== undefined) problems.push(problem);
      }
      return problems;
    },
  };
}
