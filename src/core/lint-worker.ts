/**
 * Worker-thread entry for parallel `check`: lints the session groups it is
 * given and posts back plain results (fixes reduced to title and
 * applicability; their edits are only ever computed in-process by `fix`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lintFolder } from './linter.js';
import type { FileResult, SeveritySetting } from './types.js';
import { RULES } from '../rules/index.js';
import { toTransferable, type WorkerInput } from './parallel.js';

const input = workerData as WorkerInput;
const projectFiles = new Map(input.projectFiles);
const options = {
  rules: RULES,
  severities: new Map<string, SeveritySetting>(input.severities),
  only: input.only === undefined ? undefined : new Set(input.only),
};
for (const folder of input.folders) {
  lintFolder(folder, projectFiles, options, (outcome) =>
    parentPort?.postMessage({
      results: outcome.results.map((r: FileResult) => toTransferable(r)),
      failures: outcome.failures,
    }),
  );
}
