/**
 * Worker-thread entry for parallel `check`: waits for its work, takes
 * project folders off the shared counter until none is left, and posts back
 * plain results (fixes reduced to title and applicability; their edits are
 * only ever computed in-process by `fix`). With no listener left, the worker
 * exits by itself.
 */
import { parentPort } from 'node:worker_threads';
import type { SeveritySetting } from '../core/types.js';
import { RULES } from '../rules/index.js';
import { lintFolderMaybeCached, takeFolders, toTransferable, type WorkerInput } from './parallel.js';
import { adoptTuning } from '../tuning.js';

parentPort?.once('message', (input: WorkerInput) => {
  adoptTuning(input.tuned);
  const projectFiles = new Map(input.projectFiles);
  const options = {
    rules: RULES,
    severities: new Map<string, SeveritySetting>(input.severities),
    only: input.only === undefined ? undefined : new Set(input.only),
    facts: input.facts,
  };
  void takeFolders(input.folders, input.next, (folder) =>
    lintFolderMaybeCached(
      folder,
      projectFiles,
      options,
      (outcome) => parentPort?.postMessage({ results: outcome.results.map(toTransferable), failures: outcome.failures }),
      input.cache,
    ),
  );
});
