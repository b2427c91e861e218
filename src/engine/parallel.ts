/**
 * Parallel linting for large scans. Project folders are independent (a
 * folder's files resolve each other's parents, never another folder's), so
 * they are handed out one at a time, largest first, to the main thread and
 * worker threads alike through a shared counter: whoever is free takes the
 * next folder, and no thread idles while another still has a queue. Small
 * inputs, and runs from TypeScript sources (tests), lint in-process.
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SessionGroup } from '../core/discovery.js';
import { type LintOptions, type ReadFailure, lintFolder } from './linter.js';
import { type CacheConfig, cachedOutcomes, lintFolderCached } from './cache.js';
import type { FileResult, Fix, SeveritySetting } from '../core/types.js';
import { isTuned } from '../tuning.js';
import { splitBytesFor } from './split-parse.js';

/** Below this many bytes, starting workers costs more than it saves. */
export const PARALLEL_MIN_BYTES = 64 * 1024 * 1024;

/** The work a lint worker is sent once it has started. */
export interface WorkerInput {
  /** Whole project folders, in the order they are taken. */
  readonly folders: ReadonlyArray<readonly SessionGroup[]>;
  /**
   * One Int32 shared by every thread: the index of the next folder to take.
   * `Atomics.add` hands each folder to exactly one thread.
   */
  readonly next: Int32Array;
  readonly projectFiles: ReadonlyArray<readonly [string, readonly string[]]>;
  readonly severities: ReadonlyArray<readonly [string, SeveritySetting]>;
  readonly only: readonly string[] | undefined;
  /** Results carry the files' facts for the sessions table. */
  readonly facts: boolean;
  /** `--cache`: where entries live and the stamp they must carry. */
  readonly cache: CacheConfig | undefined;
  /** The main thread tuned V8's flags (tuning.ts), which a worker may then bound. */
  readonly tuned: boolean;
}

interface WorkerMessage {
  readonly results: FileResult[];
  readonly failures: ReadFailure[];
}

/** A result that can cross a thread: a fix keeps only its title and applicability. */
export function toTransferable(result: FileResult): FileResult {
  return {
    ...result,
    findings: result.findings.map((f) =>
      f.fix === undefined ? f : { ...f, fix: { title: f.fix.title, applicability: f.fix.applicability } as Fix },
    ),
  };
}

/**
 * The other side of {@link toTransferable}, and what in-process results go
 * through too: a fix's `edits` closure holds its whole session index, and
 * keeping every index of a run alive until the report is printed costs
 * memory and garbage-collection time that check never needs.
 */
function fromTransferable(result: FileResult): FileResult {
  return {
    ...result,
    findings: result.findings.map((f) => (f.fix === undefined ? f : { ...f, fix: { ...f.fix, edits: notTransferred } })),
  };
}

function notTransferred(): never {
  throw new Error('fix edits are computed by `cclint fix`, not carried in check results');
}

function folderBytes(folder: readonly SessionGroup[]): number {
  let bytes = 0;
  for (const group of folder) {
    for (const f of group.files) {
      try {
        bytes += fs.statSync(f.path).size;
      } catch {
        // unreadable files are reported when linted
      }
    }
  }
  return bytes;
}

/** `CCLINT_THREADS` of the command's environment when set to a positive integer, else undefined. */
export function requestedThreads(env: NodeJS.ProcessEnv): number | undefined {
  const requested = Number.parseInt(env.CCLINT_THREADS ?? '', 10);
  return Number.isInteger(requested) && requested > 0 ? requested : undefined;
}

/**
 * Lints one project folder, through the cache when there is one: an
 * unchanged folder's outcomes come from it without reading a transcript.
 */
export function lintFolderMaybeCached(
  folder: readonly SessionGroup[],
  projectFiles: ReadonlyMap<string, readonly string[]>,
  options: LintOptions,
  emit: (outcome: { results: FileResult[]; failures: ReadFailure[] }) => void,
  cache: CacheConfig | undefined,
): void {
  if (cache === undefined) {
    lintFolder(folder, projectFiles, options, emit);
    return;
  }
  lintFolderCached(
    cache,
    folder,
    projectFiles,
    emit,
    (groups, indexer, emitOne, partial, uuids) => lintFolder(groups, projectFiles, options, emitOne, indexer, { partial, uuids }),
    options.splitBytes,
  );
}

/**
 * Takes folders off the shared counter until none is left. Between folders
 * it lets the event loop run: on the main thread, which also receives the
 * workers' results, they are taken in while it works rather than all at the
 * end, when they would lengthen the run.
 */
export async function takeFolders(
  folders: ReadonlyArray<readonly SessionGroup[]>,
  next: Int32Array,
  lint: (folder: readonly SessionGroup[]) => void,
): Promise<void> {
  for (;;) {
    const folder = folders[Atomics.add(next, 0, 1)];
    if (folder === undefined) return;
    lint(folder);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Worker threads that are starting up, before their work is known. */
export interface LintThreads {
  readonly workers: readonly Worker[];
  /** Settles when every worker has exited; rejects when one failed. */
  readonly exited: Promise<void>;
}

const WORKER_FILE = fileURLToPath(new URL('./lint-worker.js', import.meta.url));

/**
 * Starts the worker threads for a scan that may be large, so that their
 * start-up (a fresh V8 isolate loading the linter) runs on the other cores
 * while this thread walks the folders. {@link lintGroups} sends them work or,
 * when the input turns out small, stops them. Undefined when no worker would
 * be used: one core, `CCLINT_THREADS=1`, or a run from TypeScript sources.
 */
export function startLintThreads(env: NodeJS.ProcessEnv): LintThreads | undefined {
  const count = (requestedThreads(env) ?? Math.min(os.availableParallelism(), 4)) - 1;
  if (count < 1 || !fs.existsSync(WORKER_FILE)) return undefined;
  const workers: Worker[] = [];
  const exits: Array<Promise<void>> = [];
  for (let i = 0; i < count; i++) {
    const worker = new Worker(WORKER_FILE);
    // Until it is given work, a worker must not keep the process alive
    // (a run that fails before linting would otherwise never end).
    worker.unref();
    workers.push(worker);
    exits.push(
      new Promise<void>((resolve, reject) => {
        worker.on('error', (error) => reject(error instanceof Error ? error : new Error(String(error))));
        worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lint worker exited with code ${code}`))));
      }),
    );
  }
  const exited = Promise.all(exits).then(() => undefined);
  // Stopped before it was given work, a worker's exit is not a failure the
  // caller waits for; this keeps an early rejection from going unhandled.
  exited.catch(() => undefined);
  return { workers, exited };
}

async function stopLintThreads(threads: LintThreads | undefined): Promise<void> {
  if (threads === undefined) return;
  await Promise.all(threads.workers.map((worker) => worker.terminate()));
}

export interface LintRun {
  readonly results: FileResult[];
  readonly failures: ReadFailure[];
}

/**
 * Lints every group; `onProgress` is called after each group with the
 * number done. Results come back in no particular order.
 *
 * With `CCLINT_THREADS` set, that many threads are used whatever the input
 * size; otherwise one per core (at most 4) once the input reaches
 * {@link PARALLEL_MIN_BYTES}. `threads`, from {@link startLintThreads}, are
 * used when threads pay off and stopped otherwise; without them, workers are
 * started here once the input is known to be large enough.
 */
export async function lintGroups(
  groups: readonly SessionGroup[],
  projectFiles: ReadonlyMap<string, readonly string[]>,
  options: LintOptions,
  onProgress: (done: number) => void,
  run: {
    /** The command's environment (`CCLINT_THREADS`, `CCLINT_SPLIT_MB`). */
    readonly env: NodeJS.ProcessEnv;
    readonly threads?: LintThreads | undefined;
    readonly cache?: CacheConfig | undefined;
  },
): Promise<LintRun> {
  const { env, threads, cache } = run;
  const byFolder = new Map<string, SessionGroup[]>();
  for (const g of groups) {
    const list = byFolder.get(g.projectDir);
    if (list === undefined) byFolder.set(g.projectDir, [g]);
    else list.push(g);
  }
  let folders = [...byFolder.values()];
  const results: FileResult[] = [];
  const failures: ReadFailure[] = [];
  let done = 0;
  const collect = (outcome: { results: FileResult[]; failures: ReadFailure[] }): void => {
    results.push(...outcome.results);
    failures.push(...outcome.failures);
    onProgress(++done);
  };
  const collectOwn = (outcome: { results: FileResult[]; failures: ReadFailure[] }): void =>
    collect({ results: outcome.results.map(fromTransferable), failures: outcome.failures });
  const lintOwn = (folder: readonly SessionGroup[]): void => lintFolderMaybeCached(folder, projectFiles, options, collectOwn, cache);

  // Without a head start, workers are started once, as soon as the input is
  // known to be large enough, so their start-up overlaps the rest of this pass.
  let running = threads;
  let started = threads !== undefined;
  const start = (): void => {
    if (started) return;
    started = true;
    running = startLintThreads(env);
  };
  const lintAllOwn = async (): Promise<LintRun> => {
    await stopLintThreads(running);
    // Nothing else runs on the other cores: a big session may use one (unless one thread was asked for).
    const alone = { ...options, splitBytes: splitBytesFor(env) };
    for (const folder of folders) lintFolderMaybeCached(folder, projectFiles, alone, collectOwn, cache);
    return { results, failures };
  };

  // Folders in which nothing changed come from the cache first, so that
  // only what must be read decides whether threads pay off.
  if (cache !== undefined) {
    folders = folders.filter((folder) => {
      const outcomes = cachedOutcomes(cache, folder, projectFiles);
      if (outcomes === undefined) return true;
      for (const outcome of outcomes) collectOwn(outcome);
      return false;
    });
  }
  const requested = requestedThreads(env);
  if (folders.length < 2) return lintAllOwn();
  if (requested !== undefined) start();
  // Sizes decide whether threads pay off and which folders go first.
  const sizes: number[] = [];
  let total = 0;
  for (const folder of folders) {
    const bytes = folderBytes(folder);
    sizes.push(bytes);
    total += bytes;
    if (total >= PARALLEL_MIN_BYTES) start();
  }
  if (running === undefined || (requested === undefined && total < PARALLEL_MIN_BYTES)) return lintAllOwn();

  // Largest first: the last folders taken are the small ones, so the
  // threads finish close together.
  const order = folders
    .map((folder, i) => ({ folder, bytes: sizes[i] as number }))
    .sort((a, b) => b.bytes - a.bytes)
    .map((entry) => entry.folder);
  const next = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  const input: WorkerInput = {
    folders: order,
    next,
    projectFiles: [...projectFiles],
    severities: [...options.severities],
    only: options.only === undefined ? undefined : [...options.only],
    facts: options.facts === true,
    cache,
    tuned: isTuned(),
  };
  for (const worker of running.workers) {
    worker.on('message', (message: WorkerMessage) =>
      collect({ results: message.results.map(fromTransferable), failures: message.failures }),
    );
    worker.ref();
    worker.postMessage(input);
  }
  try {
    await takeFolders(order, next, lintOwn);
    await running.exited;
  } catch (error) {
    // A rule crashed here or in a worker: the run is over, so are the others.
    await stopLintThreads(running);
    throw error;
  }
  return { results, failures };
}
