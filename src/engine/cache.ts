/**
 * `--cache`: what a run learnt about a project folder, kept under
 * `$CCLINT_HOME/cache/` so that the next run does not read it again while
 * nothing in it changed.
 *
 * A record's parent may sit in any file of its project folder (its main
 * session, another subagent, a continuation copy), so the folder is the unit
 * of linting; what is kept is one entry per session group (a main session
 * and its subagent files), all of a folder's in one file. A group's entry is
 * used while each of its files is as it was (path, size, inode,
 * modification and change times). A group that named a parent none of its
 * own files holds depended on the rest of its folder (where the parent was
 * found, whether a main session exists): its entry also keeps the folder's
 * key (every file and the listing of `*.jsonl` names) and is used only while
 * all of that is as it was. A cross-file fact is thereby invalidated when
 * either side changes, and a session that grows costs a read of its own
 * group, not of its folder.
 *
 * A file modified within {@link RACY_MS} of the moment it was looked at may
 * change again within the same tick of the file system's clock without its
 * times moving (git's "racily clean" entries): such a file's entry also
 * keeps a SHA-256 of the bytes that were read, and is used only when the file
 * still hashes the same.
 *
 * An entry is stamped with the cache format, the cclint and V8 versions and
 * a hash of the rules and their configured severities; another stamp is a
 * miss. The file is written atomically (a temporary file renamed over it),
 * mode 0600 in a 0700 folder, and carries a SHA-256 of its payload: a file
 * that does not match is corrupt, is ignored with a warning and is
 * replaced. Deleting the folder is always safe. A run that writes an entry
 * deletes the entries of folders that are gone or of another build
 * ({@link pruneEntries}).
 *
 * A group that must be read is read through {@link indexerFor}: a session
 * of `CCLINT_CACHE_INDEX_MB` or more also keeps its index between runs
 * (stored-index.ts), so that once it has only grown, only what was appended
 * is parsed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import writeFileAtomic from 'write-file-atomic';
import type { SessionGroup } from '../core/discovery.js';
import type { ByteSource } from '../core/reader.js';
import { fileSource, HashingSource, readWholeFile } from '../core/reader.js';
import { type IndexCheckpoint, type LineObserver, type SessionFile, SessionIndex } from '../core/session-index.js';
import { UsageError } from '../core/errors.js';
import { RACY_MS, sameStat, settled } from '../core/file-stat.js';
import type { FileResult, Fix } from '../core/types.js';
import { VERSION } from '../version.js';
import { buildStamp, buildTime, CACHE_FORMAT, pruneCacheFiles } from './cache-files.js';
import { indexPath, STORE_AGAIN_SHARE, storedIndexOf, writeStoredIndex } from './stored-index.js';
import { BIG_INPUT_BYTES, boundHeapGrowth } from '../tuning.js';
import { hashInBackground } from './background-hash.js';
import { indexOnTwoThreads } from './split-parse.js';
import { type GroupInfo, indexFile, type LintOptions, NeedsWholeFolder, type ReadFailure, transcriptSource } from './linter.js';

export { RACY_MS };

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
  /**
   * Sessions at least this big keep their index in the cache, so that once
   * they grow only what was appended is read (`CCLINT_CACHE_INDEX_MB`,
   * default {@link CHECKPOINT_MB}); infinite for none.
   */
  readonly checkpointBytes: number;
  /** Which run this is (random): the cache folder is pruned once a run, the first time an entry is written. */
  readonly run: string;
}

/** Below this, reading a session again costs less than keeping its index: about 0.3 s on the bench machine. */
export const CHECKPOINT_MB = 64;

function checkpointBytesOf(env: NodeJS.ProcessEnv): number {
  const configured = env.CCLINT_CACHE_INDEX_MB;
  if (configured === undefined || configured === '') return CHECKPOINT_MB * 1024 * 1024;
  const mb = Number(configured);
  if (!/^\s*\d+(\.\d+)?\s*$/.test(configured) || !Number.isFinite(mb)) {
    throw new UsageError(`CCLINT_CACHE_INDEX_MB must be a number of megabytes (0 or more), not "${configured}"`);
  }
  return mb * 1024 * 1024;
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
  return { dir, stamp: cacheStamp(lint, namespace), racyMs: RACY_MS, namespace, checkpointBytes: checkpointBytesOf(env), run: crypto.randomUUID() };
}

/** What identifies one file's content without reading it. */
interface FileKey {
  readonly path: string;
  readonly size: string;
  readonly ino: string;
  readonly mtimeNs: string;
  readonly ctimeNs: string;
  /** Modified within RACY_MS of being looked at: the SHA-256 of the bytes read is kept too. */
  readonly racy: boolean;
}

interface FolderKey {
  readonly projectDir: string;
  readonly files: readonly FileKey[];
  /** The `*.jsonl` names directly in the project folder (main sessions a subagent may look for). */
  readonly listing: readonly string[];
}

function keyOf(projectDir: string, files: readonly string[], racyMs: number, withListing: boolean): FolderKey | undefined {
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
    return { projectDir, files: keys, listing };
  } catch {
    return undefined; // a file that cannot be looked at is reported by the linter; nothing is cached
  }
}

function hashFile(file: string): string | undefined {
  try {
    const source = new HashingSource(fileSource(file));
    try {
      return source.digest();
    } finally {
      source.close();
    }
  } catch {
    return undefined;
  }
}

function entryPath(config: CacheConfig, projectDir: string): string {
  const id = crypto.createHash('sha256').update(projectDir).digest('hex').slice(0, 40);
  return path.join(config.dir, `${config.namespace}-${id}.bin`);
}

type Loaded = { readonly payload: object } | { readonly miss: true; readonly warning?: string };

function readEntry(file: string, stamp: string): Loaded {
  let bytes: Buffer;
  try {
    bytes = readWholeFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { miss: true };
    // A pipe or a device where the entry should be: replaced by the entry this run writes.
    if (code === 'EFTYPE') return { miss: true, warning: `cache file ${file} is corrupt (not a regular file); ignored and written again` };
    return { miss: true, warning: `cache file ${file} cannot be read (${(error as Error).message}); ignored` };
  }
  const corrupt = (why: string): Loaded => ({ miss: true, warning: `cache file ${file} is corrupt (${why}); ignored and written again` });
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
  let value: unknown;
  try {
    value = v8.deserialize(payload);
  } catch {
    return corrupt('undecodable payload');
  }
  if (value === null || typeof value !== 'object') return corrupt('unexpected shape');
  return { payload: value };
}

function writeEntry(config: CacheConfig, file: string, projectDir: string, payload: object): string | undefined {
  try {
    const bytes = v8.serialize(payload);
    // The build and the folder, for pruneEntries: read from the first bytes alone.
    const header = JSON.stringify({
      stamp: config.stamp,
      build: buildStamp(),
      folder: projectDir,
      sha256: crypto.createHash('sha256').update(bytes).digest('hex'),
      length: bytes.length,
    });
    fs.mkdirSync(config.dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(config.dir, 0o700);
    writeFileAtomic.sync(file, Buffer.concat([Buffer.from(`${MAGIC}${header}\n`), bytes]), { mode: 0o600, fsync: false });
    return undefined;
  } catch (error) {
    return `cache file ${file} cannot be written (${error instanceof Error ? error.message : String(error)}); going on without it`;
  }
}

/** The runs whose cache folder this thread pruned: once a run is enough, since the cache only grows when an entry is written. */
const pruned = new Set<string>();

/**
 * Deletes the entries no run will read again: written by another build,
 * or of a project folder that no longer exists (an entry of a folder that
 * is not visited again would otherwise stay for good), and temporary files
 * left by a run killed while it wrote one. An entry of another
 * configuration is kept: a run with that configuration may come back.
 * Done the first time a run writes an entry; only the first bytes of each
 * file are read.
 */
function pruneEntries(config: CacheConfig): void {
  if (pruned.has(config.run)) return;
  pruned.add(config.run);
  const build = buildStamp();
  pruneCacheFiles(config.dir, {
    names: /^(?!index-)[a-z][a-z-]*-[0-9a-f]{40}\.bin$/,
    magic: MAGIC,
    unused: (header) => header.build !== build || typeof header.folder !== 'string' || !fs.existsSync(header.folder),
  });
}

/**
 * How the cache indexes a file it has to read: as the linter does, and
 *
 * - a racy file's bytes are hashed as they are read, into `hashes`, for
 *   its group's entry (see {@link GroupEntry.hashes});
 * - a file of at least `config.checkpointBytes` keeps its index's
 *   checkpoint in the cache, with the SHA-256 of the bytes it was built
 *   from; a later run that finds the file longer and still starting with
 *   those bytes (same device and inode, same hash) reads only what was
 *   appended. The prefix is hashed whole each time (a file rewritten in
 *   place can keep its size, inode and times), on another thread while
 *   this one reads the stored index back and parses what was appended; the
 *   digest of the whole file then comes from that thread too, once both
 *   threads are known to have read the same appended bytes. A file read
 *   from its start that has settled is hashed on another thread too, and,
 *   from `splitBytes` up (a run with nothing else on the other core),
 *   indexed on two (see split-parse.ts). A run with an observer (search)
 *   reads every line and keeps nothing.
 */
function indexerFor(
  config: CacheConfig | undefined,
  hashes: Map<string, string>,
  racy: ReadonlySet<string>,
  warn: (warning: string) => void,
  splitBytes?: number,
): (file: SessionFile, observer?: LineObserver) => SessionIndex {
  return (file, observer) => {
    let identity: { dev: string; ino: string; size: number } | undefined;
    let before: fs.BigIntStats | undefined;
    if (config !== undefined && observer === undefined && Number.isFinite(config.checkpointBytes)) {
      try {
        before = fs.statSync(file.path, { bigint: true });
        if (before.isFile() && before.size >= BigInt(config.checkpointBytes)) identity = { dev: String(before.dev), ino: String(before.ino), size: Number(before.size) };
      } catch {
        // The build says why it cannot be read.
      }
    }
    // Nothing to keep or hash: read as the linter reads (on two threads from `splitBytes` up).
    if (identity === undefined && !racy.has(file.path)) return indexFile(file, observer, splitBytes);
    // As the linter's reads do once they pass that size: what is read back here is that big an index.
    if (identity !== undefined && identity.size >= BIG_INPUT_BYTES) boundHeapGrowth();
    const store = (index: SessionIndex, digest: string, from: IndexCheckpoint | undefined): void => {
      if (racy.has(file.path)) hashes.set(file.path, digest);
      if (config === undefined || identity === undefined || !worthStoring(index, from)) return;
      const checkpoint = index.checkpoint();
      if (checkpoint === undefined) return;
      const warning = writeStoredIndex(config, indexPath(config, file.path), { path: file.path, dev: identity.dev, ino: identity.ino, digest }, checkpoint);
      if (warning !== undefined) warn(warning);
    };
    const resumed = config !== undefined && identity !== undefined ? storedIndexOf(config, file.path, identity, warn) : undefined;
    if (resumed !== undefined) {
      const { checkpoint: from, hasher } = resumed;
      try {
        const appended = new HashingSource(transcriptSource(file.path), from.stats.byteLength);
        const index = SessionIndex.build(file, openerOf(file.path, appended), undefined, from);
        const tail = digestOfIndexed(appended, index);
        if (hasher.prefix() === resumed.digest) {
          const wanted = racy.has(file.path) || worthStoring(index, from);
          const both = tail !== undefined && wanted ? hasher.through(index.stats.byteLength) : undefined;
          if (both !== undefined && both.tail === tail) store(index, both.whole, from);
          return index;
        }
      } finally {
        hasher.stop();
      }
      // Not the bytes it was built from: read from the start.
    }
    if (config !== undefined && identity !== undefined && before !== undefined && !racy.has(file.path) && settled(before, config.racyMs)) {
      // A file that has not changed for a while: hashed on another thread
      // as it is read (and, from `splitBytes` up, indexed on two), and the
      // digest kept when the file's times show that nothing wrote to it
      // while the threads read it (the trust the group entries give a
      // settled file's times).
      const hasher = hashInBackground(file.path, identity.size);
      try {
        const split = splitBytes !== undefined && observer === undefined && identity.size >= splitBytes ? indexOnTwoThreads(file, identity.size) : undefined;
        const index = split ?? SessionIndex.build(file, openerOf(file.path), observer);
        const digest = hasher.prefix();
        if (digest !== undefined && index.stats.byteLength === identity.size && sameStat(before, file.path)) store(index, digest, undefined);
        return index;
      } finally {
        hasher.stop();
      }
    }
    const read = new HashingSource(transcriptSource(file.path));
    const index = SessionIndex.build(file, openerOf(file.path, read), observer);
    const digest = digestOfIndexed(read, index);
    if (digest !== undefined) store(index, digest, undefined);
    return index;
  };
}

/**
 * How an index opens its file: the first time `first` (the source the read
 * that builds it goes through, hashed), then plainly. An index keeps its
 * opener for as long as it lives, and an opener that closed over the
 * indexer's variables kept, through them, what the cache's run of the
 * folder holds (measured: 110 MB more filling the cache of the bench tree on
 * one thread): so this one holds the path, and nothing else once its first
 * read is made.
 */
function openerOf(file: string, first?: ByteSource): () => ByteSource {
  let pending = first;
  return () => {
    const open = pending;
    pending = undefined;
    return open ?? transcriptSource(file);
  };
}

/** The digest of the bytes `index` was built from, read through `source`; undefined when it did not read them all in order. */
function digestOfIndexed(source: HashingSource, index: SessionIndex): string | undefined {
  return source.hashedTo === index.stats.byteLength ? source.digestOfRead() : undefined;
}

/** Whether an index read from `from` (or from the start) should be stored: it grew past its stored index by {@link STORE_AGAIN_SHARE}. */
function worthStoring(index: SessionIndex, from: IndexCheckpoint | undefined): boolean {
  if (from === undefined) return true;
  return index.stats.byteLength - from.stats.byteLength >= from.stats.byteLength * STORE_AGAIN_SHARE;
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
 * How {@link lintFolderCached} lints: the groups, read through `indexer`,
 * as {@link lintFolder} with its `cache` option (`partial`, and `uuids` to
 * fill with the uuids of the files read).
 */
export type FolderLinter = (
  groups: readonly SessionGroup[],
  indexer: (file: SessionFile) => SessionIndex,
  emit: (outcome: StoredOutcome, info: GroupInfo) => void,
  partial: boolean,
  uuids: Map<string, string> | undefined,
) => void;

type Missed = Extract<GroupLookup<StoredOutcome>, { racy: readonly string[] }>;

/**
 * The cached form of {@link lintFolder}, one entry per session group in one
 * file per folder. A group whose files are as they were comes from the
 * cache when every parent its files name is in them (most groups), whatever
 * else changed in the folder. The groups whose files changed are linted
 * alone (when each of them is self-contained), and a group that looked
 * parents up in the rest of the folder keeps its value while none of the
 * files that changed holds one of those parents, now or before. Anything
 * else, and the whole folder is linted, as without the cache, and the
 * groups that changed are stored. Results must already be transferable (no
 * fix edits). A group with a file that could not be read is not stored.
 */
export function lintFolderCached(
  config: CacheConfig,
  groups: readonly SessionGroup[],
  projectFiles: ReadonlyMap<string, readonly string[]>,
  emit: (outcome: StoredOutcome) => void,
  lint: FolderLinter,
  splitBytes?: number,
): void {
  const folder = folderOf(groups);
  if (folder === undefined) return;
  const warnings: string[] = [];
  const store = groupStore<StoredOutcome>(config, projectFiles, (w) => warnings.push(w), true, true);
  const withWarnings = (outcome: StoredOutcome): StoredOutcome => {
    if (warnings.length === 0) return outcome;
    const failures = [...outcome.failures, ...warnings.splice(0).map((message) => ({ path: folder.projectDir, message, explicit: false }))];
    return { ...outcome, failures };
  };
  const hits: StoredOutcome[] = [];
  const missed = new Map<SessionGroup, Missed>();
  const depending = new Map<SessionGroup, Missed & { stale: NonNullable<Missed['stale']> }>();
  for (const group of groups) {
    const lookup = store.lookup(folder.projectDir, group.files.map((f) => f.path));
    if (lookup.hit !== undefined) hits.push(lookup.hit);
    else if (lookup.stale !== undefined) depending.set(group, { ...lookup, stale: lookup.stale });
    else missed.set(group, lookup);
  }
  const hashes = new Map<string, string>();
  const racy = new Set([...missed.values(), ...depending.values()].flatMap((l) => l.racy));
  const indexer = indexerFor(config, hashes, racy, (w) => warnings.push(w), splitBytes);
  const linted: Array<{ outcome: StoredOutcome; info: GroupInfo }> = [];
  let whole = false;
  if (missed.size > 0 || depending.size > 0) {
    const reread = new Set([...missed.keys()].flatMap((g) => g.files.map((f) => f.path)));
    store.beforeReading(folder.projectDir, reread);
    const read = new Map<string, string>();
    // Without the fixes' edits, whose closures hold their whole session index:
    // a folder of 20,000 small sessions kept every index until the folder was
    // done (400 MB of line tables that only a full collection frees).
    const keep = (outcome: StoredOutcome, info: GroupInfo): void =>
      void linted.push({ outcome: { results: outcome.results.map(plainResult), failures: outcome.failures }, info });
    // A value that looked parents up elsewhere holds while every file that
    // changed is read again now, was not where a parent was found, and does
    // not hold one now. The first two are known before reading.
    const mayHold = ({ stale }: { stale: NonNullable<Missed['stale']> }): boolean => {
      const changed = new Set(stale.changed);
      return stale.changed.every((f) => reread.has(f)) && stale.lookups.every(([, foundIn]) => foundIn === null || !changed.has(foundIn));
    };
    whole = ![...depending.values()].every(mayHold);
    try {
      // The uuids read are kept only when a value waits on them (one big session's would be a second table of them).
      if (!whole && missed.size > 0) lint([...missed.keys()], indexer, keep, missed.size < groups.length, depending.size > 0 ? read : undefined);
    } catch (error) {
      if (!(error instanceof NeedsWholeFolder)) throw error;
      whole = true;
    }
    // A changed file that could not be read may hold any of them.
    whole ||= linted.some(({ outcome }) => outcome.failures.length > 0) && depending.size > 0;
    whole ||= [...depending.values()].some(({ stale }) => stale.lookups.some(([uuid]) => read.has(uuid)));
    if (whole) {
      // What the changed groups said so far is said again by the whole folder.
      linted.length = 0;
      const needed = new Set<SessionGroup>([...missed.keys(), ...depending.keys()]);
      lint(groups, indexer, (outcome, info) => needed.has(info.group) && keep(outcome, info), false, undefined);
    } else {
      for (const { stale, store: keepAgain } of depending.values()) {
        hits.push(stale.value);
        // Stored again with the folder as it is now, which it was checked against.
        keepAgain(stale.value, true, new Map([...hashes, ...Object.entries(stale.hashes)]), stale.lookups);
      }
    }
  }
  for (const outcome of folder.shown(hits)) emit(withWarnings(outcome));
  for (const { outcome, info } of linted) {
    emit(withWarnings(outcome));
    if (outcome.failures.length > 0) continue;
    const stored = { results: outcome.results.map((r) => ({ ...plainResult(r), filePath: folder.absolute.get(r.filePath) ?? r.filePath })), failures: [] };
    (missed.get(info.group) ?? depending.get(info.group))?.store(stored, !info.selfContained, hashes, info.lookups);
  }
  warnings.push(...store.save());
  if (warnings.length > 0) emit(withWarnings({ results: [], failures: [] }));
}

/**
 * The outcomes of a folder in which nothing changed, from the cache alone;
 * undefined when some group must be read, or the entry had a problem (the
 * folder is then linted through {@link lintFolderCached}, which says what
 * was wrong with it). Lets a run decide which folders need reading before
 * it starts threads.
 */
export function cachedOutcomes(
  config: CacheConfig,
  groups: readonly SessionGroup[],
  projectFiles: ReadonlyMap<string, readonly string[]>,
): StoredOutcome[] | undefined {
  const folder = folderOf(groups);
  if (folder === undefined) return [];
  let problem = false;
  // Only looks: no transcript of the folder is read.
  const store = groupStore<StoredOutcome>(config, projectFiles, () => (problem = true), true, true);
  const hits: StoredOutcome[] = [];
  for (const group of groups) {
    const lookup = store.lookup(folder.projectDir, group.files.map((f) => f.path));
    if (lookup.hit === undefined || problem) return undefined;
    hits.push(lookup.hit);
  }
  // A file stored while racy that has settled was hashed by the lookup: the
  // entry says so from now on (saved only then), or every later run would
  // hash it again. A folder whose entry cannot be written is linted the
  // other way, which says why.
  if (store.save().length > 0) return undefined;
  return folder.shown(hits);
}

function folderOf(groups: readonly SessionGroup[]) {
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
  return {
    projectDir,
    absolute,
    /** Stored outcomes with this run's display paths. */
    shown: (outcomes: readonly StoredOutcome[]): StoredOutcome[] =>
      outcomes.map((o) => ({ results: o.results.map((r) => ({ ...r, filePath: shown.get(r.filePath) ?? r.filePath })), failures: o.failures })),
  };
}

/**
 * The cache's entries, one per session group (check, sessions and search
 * alike): a session that grows invalidates itself, not its folder. The
 * entries of a folder's groups share one cache file, read once and written
 * once a run (by {@link GroupStore.save}). A value that did depend on other
 * files of its folder (a parent looked up elsewhere) is stored with the
 * folder's key as well (each key once per file), and is a hit only while
 * the whole folder is as it was; when other files changed, the lookup hands
 * it back as `stale`, with the parents it looked up, for the caller to
 * judge ({@link lintFolderCached}).
 */
export interface GroupStore<T> {
  /**
   * The stored value of the group whose files are `files` (absolute paths,
   * at least one), or how to compute and store one. The files are looked at
   * now, before they are read.
   */
  lookup(projectDir: string, files: readonly string[]): GroupLookup<T>;
  /**
   * Before any file of the folder is read: takes the SHA-256 of its racily
   * changed files other than `reading` (which the run reads whole through
   * {@link racyIndexer}, whose hashes a folder-wide value then keeps). A
   * store that is not told takes them all at its first miss.
   */
  beforeReading(projectDir: string, reading: ReadonlySet<string>): void;
  /** Writes the folders whose entries changed; returns what could not be done. */
  save(): string[];
}

export type GroupLookup<T> =
  | { readonly hit: T }
  | {
      readonly hit?: undefined;
      /**
       * The files modified so recently that a value read from them is kept
       * only with the SHA-256 of the bytes read: read them through
       * {@link racyIndexer}, on any thread.
       */
      readonly racy: readonly string[];
      /**
       * The group's files are as they were, but its value depended on other
       * files of the folder, and some of those changed: the value, the
       * parents it looked up there and what was found (see
       * {@link ParentLookup}), and the folder's files that changed since.
       * The value holds while no file that changed holds one of those
       * parents now or held one then. Undefined when files came or went.
       */
      readonly stale?:
        | {
            readonly value: T;
            readonly lookups: readonly ParentLookup[];
            readonly changed: readonly string[];
            /** The SHA-256 kept of the group's racy files. */
            readonly hashes: Readonly<Record<string, string>>;
          }
        | undefined;
      /**
       * Keeps the value computed from the group's files; `folderWide`: it
       * depends on other files of the folder too (`lookups`: the parents it
       * looked up there); `hashes`: what {@link racyIndexer} collected (a
       * racy file missing from it: not kept).
       */
      store(value: T, folderWide: boolean, hashes: ReadonlyMap<string, string>, lookups?: readonly ParentLookup[]): void;
    };

/** A parent uuid a group looked up in the rest of its folder, and the file it was found in (null: nowhere). */
export type ParentLookup = readonly [uuid: string, foundIn: string | null];

/**
 * Indexes files, putting into `hashes` the SHA-256 of the bytes read of each
 * of the `racy` ones (when the index read it whole, in order).
 */
export function racyIndexer(racy: readonly string[], hashes: Map<string, string>): (file: SessionFile, observer?: LineObserver) => SessionIndex {
  return indexerFor(undefined, hashes, new Set(racy), () => undefined);
}

interface GroupEntry<T> {
  readonly files: readonly FileKey[];
  /** Set when the value depends on the whole folder: the id of the folder's key it was computed with (in {@link StoredGroups.folders}). */
  readonly folder: string | undefined;
  /** With `folder`, when known: the parents looked up in the rest of the folder. */
  readonly lookups?: readonly ParentLookup[] | undefined;
  readonly hashes: Readonly<Record<string, string>>;
  readonly value: T;
}

/** A folder's key as a folder-wide value was computed with it, and the SHA-256 of its racy files then. */
interface StoredFolder {
  readonly key: FolderKey;
  readonly hashes: Readonly<Record<string, string>>;
}

/** The payload of a folder's cache file: its groups' entries, and the folder keys they name (each once). */
interface StoredGroups<T> {
  readonly groups: Record<string, GroupEntry<T>>;
  readonly folders: Record<string, StoredFolder>;
}

interface FolderState<T> {
  readonly file: string;
  readonly entries: Map<string, GroupEntry<T>>;
  readonly storedFolders: Map<string, StoredFolder>;
  /** The folder as it was before this run read anything of it; undefined when a file could not be looked at. */
  readonly key: FolderKey | undefined;
  /** Its files' keys by path, which the groups' own keys are taken from. */
  readonly byPath: ReadonlyMap<string, FileKey>;
  /** The id of {@link key}: a digest of it without its racy marks. */
  readonly keyId: string | undefined;
  /**
   * The SHA-256 of the folder's racy files, taken before this run read any of
   * them, at the first lookup that misses (which a folder-wide value may
   * follow); undefined until then, or when one could not be read.
   */
  racyHashes: Readonly<Record<string, string>> | undefined;
  changed: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> & object {
  return value !== null && typeof value === 'object';
}

/** The same file with the same size, inode and times. */
function sameFile(a: FileKey, b: FileKey): boolean {
  return a.path === b.path && a.size === b.size && a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/** The SHA-256 of each racy file of a key; undefined when one cannot be read. */
function racyHashesOf(key: FolderKey, except: ReadonlySet<string>, hashOf: (file: string) => string | undefined): Record<string, string> | undefined {
  const hashes: Record<string, string> = {};
  for (const f of key.files) {
    if (!f.racy || except.has(f.path)) continue;
    const hash = hashOf(f.path);
    if (hash === undefined) return undefined;
    hashes[f.path] = hash;
  }
  return hashes;
}

/**
 * The files of a folder that changed between a stored key and now (their
 * times, or the bytes of a file that was racy then); undefined when files
 * came or went, or its listing of `*.jsonl` names changed.
 */
function changedFiles(stored: StoredFolder, now: FolderKey, hashOf: (file: string) => string | undefined): string[] | undefined {
  if (JSON.stringify(stored.key.listing) !== JSON.stringify(now.listing) || stored.key.files.length !== now.files.length) return undefined;
  const changed: string[] = [];
  for (let i = 0; i < now.files.length; i++) {
    const a = stored.key.files[i] as FileKey;
    const b = now.files[i] as FileKey;
    if (a.path !== b.path) return undefined;
    const same = a.size === b.size && a.ino === b.ino && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
    if (!same || (a.racy && (stored.hashes[a.path] === undefined || hashOf(a.path) !== stored.hashes[a.path]))) changed.push(b.path);
  }
  return changed;
}

export function groupStore<T>(
  config: CacheConfig,
  projectFiles: ReadonlyMap<string, readonly string[]>,
  warn: (message: string) => void,
  /** Values may depend on the whole folder: its key is taken before anything of it is read. */
  folderWide: boolean,
  /**
   * The caller says when it starts reading ({@link GroupStore.beforeReading});
   * else the folder's racily changed files are hashed at the first miss.
   */
  tellsBeforeReading = false,
): GroupStore<T> {
  const folders = new Map<string, FolderState<T>>();
  let told = tellsBeforeReading;
  const folderOf = (projectDir: string): FolderState<T> => {
    let state = folders.get(projectDir);
    if (state !== undefined) return state;
    const file = entryPath(config, projectDir);
    const entries = new Map<string, GroupEntry<T>>();
    const storedFolders = new Map<string, StoredFolder>();
    const loaded = readEntry(file, config.stamp);
    if ('payload' in loaded) {
      const stored = loaded.payload as Partial<StoredGroups<T>>;
      if (isRecord(stored.groups) && isRecord(stored.folders)) {
        // What the checksum vouches for was written by cclint; an entry of another shape is dropped, not trusted.
        for (const [id, entry] of Object.entries(stored.groups)) if (isRecord(entry) && Array.isArray(entry.files) && isRecord(entry.hashes)) entries.set(id, entry);
        for (const [id, folder] of Object.entries(stored.folders)) if (isRecord(folder) && isRecord(folder.key) && Array.isArray(folder.key.files) && isRecord(folder.hashes)) storedFolders.set(id, folder);
      }
    } else if (loaded.warning !== undefined) warn(loaded.warning);
    // One look at every file of the folder, for the groups' keys and the folder's.
    const all = [...(projectFiles.get(projectDir) ?? [])].sort();
    const key = keyOf(projectDir, all, config.racyMs, folderWide);
    const byPath = new Map((key?.files ?? []).map((f) => [f.path, f]));
    const keyId = key === undefined ? undefined : crypto.createHash('sha1').update(JSON.stringify({ ...key, files: key.files.map((f) => ({ ...f, racy: false })) })).digest('hex');
    state = { file, entries, storedFolders, key, byPath, keyId, racyHashes: undefined, changed: false };
    folders.set(projectDir, state);
    return state;
  };
  /** The keys of a group's files: from the folder's, else looked at now. */
  const ownKeys = (folder: FolderState<T>, projectDir: string, sorted: readonly string[]): readonly FileKey[] | undefined => {
    const found = sorted.map((p) => folder.byPath.get(p));
    if (found.every((f) => f !== undefined)) return found as FileKey[];
    return keyOf(projectDir, sorted, config.racyMs, false)?.files;
  };
  // A file stored while it was racy is hashed whole to be trusted: once per
  // run, however many groups or folder keys ask.
  const hashed = new Map<string, string | undefined>();
  const hashOf = (file: string): string | undefined => {
    if (!hashed.has(file)) hashed.set(file, hashFile(file));
    return hashed.get(file);
  };
  const racyHolds = (files: readonly FileKey[], hashes: Readonly<Record<string, string>>): boolean =>
    files.every((f) => !f.racy || (hashes[f.path] !== undefined && hashOf(f.path) === hashes[f.path]));
  /** Racy when stored, settled now (and vouched for by its hash): not hashed again on later runs. */
  const settledSinceStored = (stored: readonly FileKey[], now: (file: string) => FileKey | undefined): boolean =>
    stored.some((f) => f.racy && now(f.path)?.racy === false);
  return {
    lookup(projectDir, files) {
      const folder = folderOf(projectDir);
      const sorted = [...files].sort();
      const id = sorted[0] as string;
      const keys = ownKeys(folder, projectDir, sorted);
      const entry = folder.entries.get(id);
      const ownAsStored =
        entry !== undefined &&
        keys !== undefined &&
        entry.files.length === keys.length &&
        entry.files.every((f, i) => sameFile(f, keys[i] as FileKey)) &&
        racyHolds(entry.files, entry.hashes);
      const storedFolder = entry?.folder === undefined ? undefined : folder.storedFolders.get(entry.folder);
      if (ownAsStored) {
        // The same files with the same times, and each file racy when stored hashes the same now as then.
        if (entry.folder === undefined || (storedFolder !== undefined && entry.folder === folder.keyId && racyHolds(storedFolder.key.files, storedFolder.hashes))) {
          if (settledSinceStored(entry.files, (p) => keys.find((k) => k.path === p))) {
            folder.entries.set(id, { ...entry, files: keys });
            folder.changed = true;
          }
          if (storedFolder !== undefined && folder.key !== undefined && settledSinceStored(storedFolder.key.files, (p) => folder.byPath.get(p))) {
            folder.storedFolders.set(entry.folder as string, { key: folder.key, hashes: storedFolder.hashes });
            folder.changed = true;
          }
          return { hit: entry.value };
        }
      }
      const racy = keys?.filter((f) => f.racy).map((f) => f.path) ?? [];
      // Before anything of the folder is read for this value.
      if (folderWide && !told && folder.key !== undefined && folder.racyHashes === undefined) folder.racyHashes = racyHashesOf(folder.key, new Set(), hashOf);
      let stale: { value: T; lookups: readonly ParentLookup[]; changed: string[]; hashes: Readonly<Record<string, string>> } | undefined;
      if (ownAsStored && storedFolder !== undefined && entry.lookups !== undefined && folder.key !== undefined) {
        const changed = changedFiles(storedFolder, folder.key, hashOf);
        if (changed !== undefined) stale = { value: entry.value, lookups: entry.lookups, changed, hashes: entry.hashes };
      }
      return {
        racy,
        stale,
        store(value, wide, hashes, lookups) {
          if (keys === undefined || racy.some((p) => !hashes.has(p))) return;
          let whole: string | undefined;
          if (wide) {
            // What other files of the folder said was read after the folder's key and hashes were taken.
            if (!folderWide || folder.key === undefined || folder.keyId === undefined || folder.racyHashes === undefined) return;
            // Every racy file of the folder needs its hash: taken before reading, or as it was read.
            const all = { ...folder.racyHashes };
            for (const f of folder.key.files) {
              if (!f.racy || all[f.path] !== undefined) continue;
              const read = hashes.get(f.path);
              if (read === undefined) return;
              all[f.path] = read;
            }
            whole = folder.keyId;
            const known = folder.storedFolders.get(whole);
            // One key, one set of hashes: a value read from other bytes of the same key is not kept.
            if (known !== undefined && Object.entries(all).some(([p, h]) => known.hashes[p] !== undefined && known.hashes[p] !== h)) return;
            folder.storedFolders.set(whole, { key: folder.key, hashes: { ...known?.hashes, ...all } });
          }
          const own = Object.fromEntries([...hashes].filter(([p]) => racy.includes(p)));
          folder.entries.set(id, { files: keys, folder: whole, lookups: wide ? lookups : undefined, hashes: own, value });
          folder.changed = true;
        },
      };
    },
    beforeReading(projectDir, reading) {
      told = true;
      const folder = folderOf(projectDir);
      // The files read are hashed as they are read (a live session is racy, and may be large).
      if (folderWide && folder.key !== undefined && folder.racyHashes === undefined) folder.racyHashes = racyHashesOf(folder.key, reading, hashOf);
    },
    save() {
      const problems: string[] = [];
      for (const [projectDir, folder] of folders) {
        if (!folder.changed) continue;
        // Groups whose files are gone are dropped with the folder's next write.
        for (const [id, entry] of folder.entries) if (!entry.files.every((f) => fs.existsSync(f.path))) folder.entries.delete(id);
        // Folder keys no entry names any more are dropped too.
        const named = new Set([...folder.entries.values()].flatMap((e) => (e.folder === undefined ? [] : [e.folder])));
        const payload: StoredGroups<T> = {
          groups: Object.fromEntries(folder.entries),
          folders: Object.fromEntries([...folder.storedFolders].filter(([id]) => named.has(id))),
        };
        const problem = writeEntry(config, folder.file, projectDir, payload);
        if (problem !== undefined) problems.push(problem);
        else pruneEntries(config);
      }
      return problems;
    },
  };
}
