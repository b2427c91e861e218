/**
 * Worker-thread entry for a large `search`: waits for its work, takes
 * session groups off the shared counter until none is left, and posts back
 * each group's outcome (plain data) with its place in the order. With no
 * listener left, the worker exits by itself.
 */
import { parentPort } from 'node:worker_threads';
import { ProjectRegistry } from './linter.js';
import { type SearchWorkerInput, type SearchWorkerMessage, matcherOf, runTask, takeTasks } from './search.js';
import { adoptTuning } from '../tuning.js';

parentPort?.once('message', (input: SearchWorkerInput) => {
  adoptTuning(input.tuned);
  const matcher = matcherOf(input.matcher);
  const registry = new ProjectRegistry(new Map(input.projectFiles));
  void takeTasks(input.tasks.length, input.next, (at) => {
    const message: SearchWorkerMessage = { at, outcome: runTask(input.tasks[at] as SearchWorkerInput['tasks'][number], matcher, input.all, registry) };
    parentPort?.postMessage(message);
  });
});
