/**
 * Parallel linting for large scans: session groups are independent, so they
 * are spread over worker threads, balanced by size. Small inputs, and runs
 * from TypeScript sources (tests), lint in-process.
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SessionGroup } from './discovery.js';
import { type LintOptions, type ReadFailure, lintFolder } from './linter.js';
import type { FileResult, Fix, SeveritySetting } from './types.js';

/** Below this many bytes, starting workers costs more than it saves. */
export const PARALLEL_MIN_BYTES = 64 * 1024 * 1024;

export interface WorkerInput {
  /** Whole project folders: a folder's files resolve each other's parents. */
  readonly folders: ReadonlyArray<readonly SessionGroup[]>;
  readonly projectFiles: ReadonlyArray<readonly [string, readonly string[]]>;
  readonly severities: ReadonlyArray<readonly [string, SeveritySetting]>;
  readonly only: readonly string[] | undefined;
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

/** The other side of {@link toTransferable}: edits are never computed for check. */
function fromTransferable(result: FileResult): FileResult {
  return {
    ...result,
    findings: result.findings.map((f) => (f.fix === undefined ? f : { ...f, fix: { ...f.fix, edits: notTransferred } })),
  };
}

function notTransferred(): never {
  throw new Error('fix edits are computed by `cclint fix`, not carried in check results');
}

function groupBytes(group: SessionGroup): number {
  let bytes = 0;
  for (const f of group.files) {
    try {
      bytes += fs.statSync(f.path).size;
    } catch {
      // unreadable files are reported when linted
    }
  }
  return bytes;
}

export interface LintRun {
  readonly results: FileResult[];
  readonly failures: ReadFailure[];
}

/**
 * Lints every group; `onProgress` is called after each group with the
 * number done. Results come back in no particular order.
 */
export async function lintGroups(
  groups: readonly SessionGroup[],
  projectFiles: ReadonlyMap<string, readonly string[]>,
  options: LintOptions,
  onProgress: (done: number) => void,
): Promise<LintRun> {
  const byFolder = new Map<string, SessionGroup[]>();
  for (const g of groups) {
    const list = byFolder.get(g.projectDir);
    if (list === undefined) byFolder.set(g.projectDir, [g]);
    else list.push(g);
  }
  const folders = [...byFolder.values()];
  const sizes = folders.map((f) => f.reduce((n, g) => n + groupBytes(g), 0));
  const total = sizes.reduce((a, b) => a + b, 0);
  const workerFile = fileURLToPath(new URL('./lint-worker.js', import.meta.url));
  const requested = Number.parseInt(process.env.CCLINT_THREADS ?? '', 10);
  const cores = Number.isInteger(requested) && requested > 0 ? requested : Math.min(os.availableParallelism?.() ?? os.cpus().length, 4);
  const threads = Math.min(cores, folders.length);
  const results: FileResult[] = [];
  const failures: ReadFailure[] = [];
  let done = 0;
  const collect = (outcome: { results: FileResult[]; failures: ReadFailure[] }): void => {
    results.push(...outcome.results);
    failures.push(...outcome.failures);
    onProgress(++done);
  };
  if (total < PARALLEL_MIN_BYTES || threads < 2 || !fs.existsSync(workerFile)) {
    for (const folder of folders) lintFolder(folder, projectFiles, options, collect);
    return { results, failures };
  }
  // Largest folder first onto the least-loaded thread.
  const buckets: SessionGroup[][][] = Array.from({ length: threads }, () => []);
  const load = new Array<number>(threads).fill(0);
  const order = folders.map((_, i) => i).sort((a, b) => (sizes[b] as number) - (sizes[a] as number));
  for (const i of order) {
    const target = load.indexOf(Math.min(...load));
    (buckets[target] as SessionGroup[][]).push(folders[i] as SessionGroup[]);
    load[target] = (load[target] as number) + (sizes[i] as number);
  }
  // The main thread lints the first share itself while workers take the
  // rest: one worker fewer to start, and no core left idle.
  const [own = [], ...others] = buckets;
  const workers = Promise.all(
    others.map(
      (bucket) =>
        new Promise<void>((resolve, reject) => {
          const dirs = new Set(bucket.map((f) => (f[0] as SessionGroup).projectDir));
          const input: WorkerInput = {
            folders: bucket,
            projectFiles: [...projectFiles].filter(([dir]) => dirs.has(dir)),
            severities: [...options.severities],
            only: options.only === undefined ? undefined : [...options.only],
          };
          const worker = new Worker(workerFile, { workerData: input });
          worker.on('message', (message: WorkerMessage) =>
            collect({ results: message.results.map(fromTransferable), failures: message.failures }),
          );
          worker.on('error', (error) => reject(error instanceof Error ? error : new Error(String(error))));
          worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lint worker exited with code ${code}`))));
        }),
    ),
  );
  for (const folder of own) lintFolder(folder, projectFiles, options, collect);
  await workers;
  return { results, failures };
}
