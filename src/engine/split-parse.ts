/**
 * Both cores on one big session. A project folder is linted on one thread,
 * so a single big session used one core while the other idled (two
 * processes parsing the two halves of the bench's 724 MB session take 0.7 s
 * each where one takes 1.5 s for the whole). Here the part of the file after
 * a line boundary past its middle is indexed on a worker thread while this
 * one indexes the part before it; the worker's summaries come back in the
 * stored-index encoding (`checkpoint.ts`), and the index is then built from
 * both parts as from a stored index: the same index a read from the start
 * builds (`test/engine/split-parse.test.ts`).
 *
 * The linter is synchronous, so the worker's answer is waited for with
 * `Atomics.wait` and taken with `receiveMessageOnPort`. A worker that fails
 * or stops reading has its part indexed here instead. Only where nothing
 * else runs on the other core (a run on one thread otherwise, see
 * `parallel.ts`) and below the size whose index must save memory rather
 * than time (the worker holds its part's index while it encodes it), so
 * its reads need none of the linter's bounding of the heap: it reads through
 * plain file sources, and the worker loads the index's modules only.
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { type CheckpointMeta, checkpointAt, decodeCheckpoint, encodeCheckpoint } from '../core/checkpoint.js';
import { type ByteSource, fileSource, READ_FLAGS } from '../core/reader.js';
import { type IndexCheckpoint, type SessionFile, SessionIndex } from '../core/session-index.js';
import { BIG_INPUT_BYTES } from '../tuning.js';
import { waitWhile } from './worker-wait.js';

/** Below this, a worker's start and the encoding cost about what the second core saves. */
export const SPLIT_MIN_MB = 128;

/** The share of the file this thread indexes: the worker also encodes its part, and this thread decodes it. */
const OWN_SHARE = 0.55;

const WORKER_FILE = fileURLToPath(new URL('./parse-worker.js', import.meta.url));

/**
 * How big a session must be to be indexed on two threads in a run that
 * otherwise uses one (see `CCLINT_SPLIT_MB`); undefined when one thread was
 * asked for (`CCLINT_THREADS=1`) or there is one core.
 */
export function splitBytesFor(env: NodeJS.ProcessEnv): number | undefined {
  if (Number.parseInt(env.CCLINT_THREADS ?? '', 10) === 1 || os.availableParallelism() < 2) return undefined;
  return splitBytesOf(env);
}

/** `CCLINT_SPLIT_MB`: a session at least this big is indexed on two threads (a value that is not a number of MB is ignored, as `CCLINT_THREADS`'s is). */
export function splitBytesOf(env: NodeJS.ProcessEnv): number {
  const configured = Number(env.CCLINT_SPLIT_MB);
  return (env.CCLINT_SPLIT_MB !== undefined && env.CCLINT_SPLIT_MB !== '' && Number.isFinite(configured) && configured >= 0 ? configured : SPLIT_MIN_MB) * 1024 * 1024;
}

/** A part of a file indexed alone, encoded: what the worker sends back. */
export interface EncodedPart {
  readonly meta: CheckpointMeta;
  readonly pieces: readonly Uint8Array[];
}

/** The bytes `[start, end)` of `file` as a source (reads past `end` find nothing); `onRead` sees each read. */
function rangeSource(file: string, end: number, onRead?: () => void): ByteSource {
  const inner = fileSource(file);
  return {
    get size() {
      return Math.min(inner.size, end);
    },
    read(target, targetOffset, length, position) {
      onRead?.();
      if (position >= end) return 0;
      return inner.read(target, targetOffset, Math.min(length, end - position), position);
    },
    close: () => inner.close(),
  };
}

/** How an index of a part opens its file: its scan within the part, later reads (lines read back) anywhere. */
function partOpener(file: string, end: number, onRead?: () => void): () => ByteSource {
  let scanned = false;
  return () => {
    if (scanned) return fileSource(file);
    scanned = true;
    return rangeSource(file, end, onRead);
  };
}

/** Indexes the bytes `[start, end)` of the file, a line starting at `start`, and encodes the index. */
export function indexPart(file: SessionFile, start: number, end: number, onRead?: () => void): EncodedPart {
  const index = SessionIndex.build(file, partOpener(file.path, end, onRead), undefined, checkpointAt(start));
  const pieces: Uint8Array[] = [];
  const meta = encodeCheckpoint(index.part(), (piece) => pieces.push(piece));
  return { meta, pieces };
}

/** The index of the file's bytes before `split` (where a line starts), as the part the next one joins. */
export function indexBefore(file: SessionFile, split: number): IndexCheckpoint {
  return SessionIndex.build(file, partOpener(file.path, split)).part();
}

/**
 * The index of the file's first `end` bytes, built from the index of its
 * bytes before a line boundary and the encoded index of those after it;
 * undefined when the encoding does not read back.
 */
export function joinParts(file: SessionFile, before: IndexCheckpoint, end: number, later: EncodedPart): SessionIndex | undefined {
  const joined = decodeCheckpoint(later.meta, later.pieces, before);
  if (joined === undefined) return undefined;
  // Both parts were read: the build reads nothing more (the file may have
  // grown meanwhile, after a torn last line that a read from the start
  // would have continued).
  return SessionIndex.build(file, partOpener(file.path, end), undefined, joined);
}

/** The start of the first line at or after `at` within `[at, size)`; undefined when none starts there. */
function lineStartFrom(file: string, at: number, size: number): number | undefined {
  const fd = fs.openSync(file, READ_FLAGS);
  try {
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    // From the byte before `at`: a line that starts at `at` follows a newline there.
    for (let position = Math.max(1, at) - 1; position < size; ) {
      const n = fs.readSync(fd, buffer, 0, Math.min(buffer.length, size - position), position);
      if (n === 0) return undefined;
      const newline = buffer.subarray(0, n).indexOf(0x0a);
      if (newline !== -1) {
        const start = position + newline + 1;
        return start < size ? start : undefined;
      }
      position += n;
    }
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Control slots (Int32) shared with the worker: its state, and a count of its reads (its heartbeat). */
const STATE = 0;
const BEAT = 1;
const WORKING = 0;
const DONE = 1;
const FAILED = 2;

/**
 * The index of `file` (`size` bytes), built on two threads; undefined when it
 * cannot be (no line starts past the middle, the worker's code is not there:
 * a run from the sources) and the caller builds it as usual.
 */
export function indexOnTwoThreads(file: SessionFile, size: number): SessionIndex | undefined {
  if (size >= BIG_INPUT_BYTES || !fs.existsSync(WORKER_FILE)) return undefined;
  const split = lineStartFrom(file.path, Math.floor(size * OWN_SHARE), size);
  if (split === undefined) return undefined;
  const shared = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const control = new Int32Array(shared);
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_FILE, { workerData: { file, start: split, end: size, shared, port: port2 }, transferList: [port2] });
  worker.unref();
  worker.on('error', () => undefined);
  try {
    const before = indexBefore(file, split);
    return joinParts(file, before, size, answer(control, port1) ?? indexPart(file, split, size));
  } finally {
    port1.close();
    void worker.terminate();
  }
}

/** The worker's encoded part, once it is done; undefined when it failed or stalled. */
function answer(control: Int32Array, port: MessagePort): EncodedPart | undefined {
  if (waitWhile(control, STATE, BEAT, WORKING) !== DONE) return undefined;
  return receiveMessageOnPort(port)?.message as EncodedPart | undefined;
}

/** The worker's side (`parse-worker.ts`): indexes its part, posts it, and says so. */
export function workOnPart(data: { file: SessionFile; start: number; end: number; shared: SharedArrayBuffer; port: MessagePort }): void {
  const control = new Int32Array(data.shared);
  let state = FAILED;
  try {
    const part = indexPart(data.file, data.start, data.end, () => Atomics.add(control, BEAT, 1));
    data.port.postMessage(part);
    state = DONE;
  } catch {
    // Said below: the part is indexed on the other thread instead.
  } finally {
    data.port.close();
    Atomics.store(control, STATE, state);
    Atomics.notify(control, STATE);
  }
}
