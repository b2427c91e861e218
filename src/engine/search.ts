/**
 * Runs a search over discovered session groups, newest first, handing each
 * session with a hit to `emit` in that order as soon as it and every newer
 * one are known (results stream).
 *
 * Per group: a byte scan first (a group no file of which may hold the text
 * is not parsed at all); then, with the cache, the group's stored facts
 * when its files are as they were, and only the lines that may match are
 * parsed; otherwise each file is indexed once, the lines that may match
 * parsed exactly during that same read (see `hitObserver`), and the facts
 * stored for the next run. See src/core/views/search.ts for what is searched.
 *
 * Groups are independent units of plain data ({@link SearchTask}), so on a
 * large input worker threads take them off a shared counter alongside this
 * thread, as `check` does with project folders; the cache is looked up and
 * written here only.
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Discovery, SessionGroup } from '../core/discovery.js';
import { fileSource } from '../core/reader.js';
import type { SessionFile, SessionIndex } from '../core/session-index.js';
import { notTranscript } from '../core/transcript.js';
import {
  type Found,
  type Matcher,
  type SearchFacts,
  type SessionHits,
  findInFile,
  hitObserver,
  mayMatch,
  plainMatcher,
  regexMatcher,
  searchFacts,
  sessionHits,
} from '../core/views/search.js';
import { type CacheConfig, type GroupLookup, groupStore, racyIndexer } from './cache.js';
import { indexFile, linkGroup, ProjectRegistry } from './linter.js';
import { PARALLEL_MIN_BYTES, requestedThreads } from './parallel.js';
import { type CpuSnapshot, cpuSnapshot, freeCores, LOADED } from './cores.js';
import { isTuned } from '../tuning.js';

/** What is searched for: plain data, rebuilt into a {@link Matcher} on each thread. */
export interface MatcherSpec {
  readonly text: string;
  readonly regex: boolean;
}

export function matcherOf(spec: MatcherSpec): Matcher {
  return spec.regex ? regexMatcher(spec.text) : plainMatcher(spec.text);
}

export interface SearchOptions {
  readonly all: boolean;
  /** Keep and use what was learnt of each session under this cache. */
  readonly cache?: CacheConfig | undefined;
  /** The command's environment (`CCLINT_THREADS`). */
  readonly env: NodeJS.ProcessEnv;
}

/** A group's stored value: its facts, or that it holds nothing to search. */
type Stored = SearchFacts | null;

/** One group's work, for any thread. */
export interface SearchTask {
  readonly files: readonly SessionFile[];
  /** Its facts, from the cache; undefined: read the files. */
  readonly facts?: SearchFacts | undefined;
  /** Read for the cache: the files whose bytes must be hashed as they are read. */
  readonly racy?: readonly string[] | undefined;
}

/** What one task gives back. */
export interface SearchOutcome {
  readonly hits: SessionHits | undefined;
  /** Lines for stderr: files that could not be read. */
  readonly notes: readonly string[];
  /** A file named on the command line could not be read. */
  readonly failed: boolean;
  /** For the cache: the value read, what it depends on, the hashes of racy files. */
  readonly store?: { readonly value: Stored; readonly folderWide: boolean; readonly hashes: ReadonlyArray<readonly [string, string]> } | undefined;
}

/** Everything a search worker is sent. */
export interface SearchWorkerInput {
  readonly tasks: readonly SearchTask[];
  /** One Int32 shared by every thread: the index of the next task to take. */
  readonly next: Int32Array;
  readonly matcher: MatcherSpec;
  readonly all: boolean;
  readonly projectFiles: ReadonlyArray<readonly [string, readonly string[]]>;
  /** The main thread tuned V8's flags (tuning.ts), which a worker may then bound. */
  readonly tuned: boolean;
}

export interface SearchWorkerMessage {
  readonly at: number;
  readonly outcome: SearchOutcome;
}

function statOf(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}

function fileMayMatch(file: string, matcher: Matcher): boolean {
  try {
    return mayMatch(fileSource(file), matcher);
  } catch {
    return true; // the indexer reports what is wrong
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Searches one group. */
export function runTask(task: SearchTask, matcher: Matcher, all: boolean, registry: ProjectRegistry): SearchOutcome {
  const { files } = task;
  // Most sessions do not say it: a byte scan leaves them unparsed.
  if (!files.some((f) => fileMayMatch(f.path, matcher))) return { hits: undefined, notes: [], failed: false };
  const shown = new Map(files.map((f) => [f.path, f]));
  const display = (p: string): string => shown.get(p)?.displayPath ?? p;
  const notes: string[] = [];
  let failed = false;
  const unreadable = (path: string, error: unknown): void => {
    notes.push(`${display(path)}: cannot be read (${message(error)})`);
    if (shown.get(path)?.explicit === true) failed = true;
  };
  if (task.facts !== undefined) {
    const found = new Map<string, Found>();
    for (const file of task.facts.files) {
      if (file.records.length === 0) continue;
      try {
        found.set(file.path, findInFile(fileSource(file.path), file.records, matcher));
      } catch (error) {
        unreadable(file.path, error);
      }
    }
    return { hits: sessionHits(task.facts, (p) => found.get(p), display), notes, failed };
  }
  const hashes = new Map<string, string>();
  const indexer = task.racy === undefined ? indexFile : racyIndexer(task.racy, hashes);
  const indexes: SessionIndex[] = [];
  const found = new Map<string, Found>();
  let complete = true;
  for (const file of files) {
    try {
      const collector = hitObserver(matcher);
      const index = indexer(file, collector.observer);
      if (notTranscript(index) !== undefined) continue;
      indexes.push(index);
      found.set(file.path, collector.found);
    } catch (error) {
      complete = false;
      unreadable(file.path, error);
    }
  }
  // Said nowhere (the bytes held the text in a tool call or its output, say):
  // without a cache to fill, the session's facts are not worked out at all.
  if (task.racy === undefined && [...found.values()].every((f) => f.size === 0)) return { hits: undefined, notes, failed };
  // Only the places of `all` (lost or abandoned) depend on parents found in
  // other files; the conversation resume loads is the file's own.
  let folderWide = false;
  if (all && indexes.some((i) => i.unresolvedParents().size > 0)) {
    linkGroup(indexes, registry);
    folderWide = true;
  }
  const facts = indexes.length === 0 ? undefined : searchFacts(indexes, { all });
  return {
    hits: facts === undefined ? undefined : sessionHits(facts, (p) => found.get(p), display),
    notes,
    failed,
    store: task.racy !== undefined && complete ? { value: facts ?? null, folderWide, hashes: [...hashes] } : undefined,
  };
}

/**
 * Takes tasks off the shared counter until none is left, letting the event
 * loop run between them (on this thread, workers' outcomes come in then).
 */
export async function takeTasks(count: number, next: Int32Array, run: (at: number) => void): Promise<void> {
  for (;;) {
    const at = Atomics.add(next, 0, 1);
    if (at >= count) return;
    run(at);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

const WORKER_FILE = fileURLToPath(new URL('./search-worker.js', import.meta.url));

/**
 * Worker threads for a large search, besides this one: `CCLINT_THREADS` in
 * all, else one per core that is free (at most 4 threads in all). A
 * worker costs about a second of CPU time of its own (a fresh V8 isolate
 * loading and compiling the same code), which is a gain only on a core
 * that would otherwise be idle: on a machine whose cores are all busy, a
 * search takes longer on two threads than on one. Free cores are measured
 * (cores.ts) from the command's start to the decision.
 */
function startWorkers(bytes: number, since: CpuSnapshot, env: NodeJS.ProcessEnv): Worker[] {
  const requested = requestedThreads(env);
  if (requested === undefined && bytes < PARALLEL_MIN_BYTES) return [];
  const cores = os.availableParallelism();
  // Measured since the command started (loading, the walk, the cache lookups); the load average when that was too short to tell.
  const free = Math.round(freeCores(since, cpuSnapshot()) ?? cores - (os.loadavg()[0] ?? 0));
  const count = requested !== undefined ? requested - 1 : Math.min(cores, 4, free) - 1;
  if (count < 1 || !fs.existsSync(WORKER_FILE)) return [];
  return Array.from({ length: count }, () => new Worker(WORKER_FILE));
}

export async function searchGroups(
  discovery: Discovery,
  spec: MatcherSpec,
  options: SearchOptions,
  emit: (hits: SessionHits) => void,
  note: (message: string) => void,
  onProgress?: (done: number, total: number) => void,
): Promise<{ readonly failed: boolean }> {
  const matcher = matcherOf(spec);
  const store =
    options.cache === undefined
      ? undefined
      : groupStore<Stored>(options.cache, discovery.projectFiles, note, options.all);
  // Newest first, while streaming: the file written last holds the latest activity.
  const order: Array<{ group: SessionGroup; files: readonly SessionFile[]; time: number; bytes: number }> = [];
  for (const group of discovery.groups) {
    const files = options.all ? group.files : group.files.filter((f) => f.role === 'main');
    if (files.length === 0) continue;
    let time = 0;
    let bytes = 0;
    for (const f of files) {
      const st = statOf(f.path);
      bytes += st?.size ?? 0;
      if (f.role === 'main') time = Math.max(time, st?.mtimeMs ?? 0);
    }
    order.push({ group, files, time, bytes });
  }
  order.sort((a, b) => b.time - a.time || (a.group.files[0]?.path ?? '').localeCompare(b.group.files[0]?.path ?? ''));
  // The cache is looked at before anything is read.
  const tasks: SearchTask[] = [];
  const lookups: Array<GroupLookup<Stored> | undefined> = [];
  // What may have to be parsed (sessions the cache does not know) decides whether threads pay off.
  let unknownBytes = 0;
  for (const { group, files, bytes } of order) {
    const lookup = store?.lookup(group.projectDir, files.map((f) => f.path));
    if (lookup?.hit === null) continue; // nothing to search in it
    tasks.push(lookup === undefined ? { files } : lookup.hit !== undefined ? { files, facts: lookup.hit } : { files, racy: lookup.racy });
    lookups.push(lookup);
    if (lookup?.hit === undefined) unknownBytes += bytes;
  }

  let failed = false;
  const outcomes: Array<SearchOutcome | undefined> = new Array(tasks.length);
  let emitted = 0;
  const deliver = (at: number, outcome: SearchOutcome): void => {
    outcomes[at] = outcome;
    for (let o = outcomes[emitted]; o !== undefined && emitted < tasks.length; o = outcomes[emitted]) {
      for (const line of o.notes) note(line);
      if (o.failed) failed = true;
      const lookup = lookups[emitted];
      if (o.store !== undefined && lookup !== undefined && lookup.hit === undefined) lookup.store(o.store.value, o.store.folderWide, new Map(o.store.hashes));
      if (o.hits !== undefined) emit(o.hits);
      outcomes[emitted] = undefined;
      lookups[emitted] = undefined;
      emitted++;
      onProgress?.(emitted, tasks.length);
    }
  };
  const registry = new ProjectRegistry(discovery.projectFiles);
  const next = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const own = (at: number): void => deliver(at, runTask(tasks[at] as SearchTask, matcher, options.all, registry));
  const workers = tasks.length > 1 ? startWorkers(unknownBytes, LOADED, options.env) : [];
  if (workers.length === 0) {
    for (let at = 0; at < tasks.length; at++) own(at);
  } else {
    const input: SearchWorkerInput = { tasks, next, matcher: spec, all: options.all, projectFiles: [...discovery.projectFiles], tuned: isTuned() };
    const exited = workers.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          worker.on('message', (m: SearchWorkerMessage) => deliver(m.at, m.outcome));
          worker.on('error', (error) => reject(error instanceof Error ? error : new Error(String(error))));
          worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`search worker exited with code ${code}`))));
          worker.postMessage(input);
        }),
    );
    try {
      await takeTasks(tasks.length, next, own);
      await Promise.all(exited);
    } catch (error) {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw error;
    }
  }
  for (const problem of store?.save() ?? []) note(problem);
  return { failed };
}
