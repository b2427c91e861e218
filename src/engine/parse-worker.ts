/**
 * Worker-thread entry for indexing the second part of a big session while
 * the thread that started it indexes the first (see `split-parse.ts`).
 */
import { workerData } from 'node:worker_threads';
import { workOnPart } from './split-parse.js';

workOnPart(workerData as Parameters<typeof workOnPart>[0]);
