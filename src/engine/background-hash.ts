/**
 * Hashing a big file's first bytes on another thread while this one does
 * something else: what `--cache` does to check that a session that grew
 * still starts with the bytes its stored index was built from (half a
 * second for a 700 MB session, about what reading the stored index back
 * takes meanwhile).
 *
 * The worker is made from source text (it needs `fs` and `crypto` only, and
 * no file of its own, so it runs the same from the sources and from the
 * build) and answers through shared memory: the caller waits for its
 * answers with `Atomics.wait`, as the linter it serves is synchronous.
 */
import { Worker } from 'node:worker_threads';
import { waitWhile as waitFor } from './worker-wait.js';

/** Control slots (Int32): the worker's state, the caller's request, and a count of the worker's reads (its heartbeat). */
const STATE = 0;
const REQUEST = 1;
const BEAT = 2;
/** States. */
const WORKING = 0;
const PREFIX_DONE = 1;
const ALL_DONE = 2;
const FAILED = 3;
/** Requests. */
const NONE = 0;
const GO_ON = 1;
const STOP = 2;
/** Bytes: the control slots, then the end the caller asks for (Float64), then three hex SHA-256 digests. */
const CONTROL_SLOTS = 3;
const END_AT = 16;
const DIGESTS_AT = 24;
const HEX = 64;

const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const fs = require('node:fs');
const crypto = require('node:crypto');
const { file, prefix, shared } = workerData;
const control = new Int32Array(shared, 0, ${CONTROL_SLOTS});
const end = new Float64Array(shared, ${END_AT}, 1);
const digests = new Uint8Array(shared, ${DIGESTS_AT}, ${3 * HEX});
const put = (slot, hex) => digests.set(Buffer.from(hex, 'latin1'), slot * ${HEX});
const settle = (state) => { Atomics.store(control, ${STATE}, state); Atomics.notify(control, ${STATE}); };
let fd;
try {
  fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  const buffer = Buffer.allocUnsafe(8 * 1024 * 1024);
  const feed = (hashes, from, to) => {
    for (let at = from; at < to; ) {
      const n = fs.readSync(fd, buffer, 0, Math.min(buffer.length, to - at), at);
      if (n === 0) throw new Error('short');
      for (const h of hashes) h.update(buffer.subarray(0, n));
      at += n;
      Atomics.add(control, ${BEAT}, 1);
    }
  };
  const whole = crypto.createHash('sha256');
  feed([whole], 0, prefix);
  put(0, whole.copy().digest('hex'));
  settle(${PREFIX_DONE});
  Atomics.wait(control, ${REQUEST}, ${NONE});
  if (Atomics.load(control, ${REQUEST}) === ${GO_ON}) {
    const tail = crypto.createHash('sha256');
    feed([whole, tail], prefix, end[0]);
    put(1, whole.digest('hex'));
    put(2, tail.digest('hex'));
    settle(${ALL_DONE});
  }
} catch {
  settle(${FAILED});
} finally {
  if (fd !== undefined) fs.closeSync(fd);
}
`;

export interface BackgroundHash {
  /** The SHA-256 of the file's first `prefix` bytes; undefined when they could not be read. Waits for it. */
  prefix(): string | undefined;
  /**
   * The SHA-256 of the file's first `end` bytes, and of those after
   * `prefix` (which the caller compares with its own reading of them, to
   * know that both threads read the same bytes). Waits for them; ends the
   * worker.
   */
  through(end: number): { whole: string; tail: string } | undefined;
  /** Ends the worker without asking for more. */
  stop(): void;
}

export function hashInBackground(file: string, prefix: number): BackgroundHash {
  const shared = new SharedArrayBuffer(DIGESTS_AT + 3 * HEX);
  const control = new Int32Array(shared, 0, CONTROL_SLOTS);
  const digests = new Uint8Array(shared, DIGESTS_AT, 3 * HEX);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, prefix, shared } });
  // It never keeps the process alive, nor makes it fail: the answers come through the shared memory.
  worker.unref();
  worker.on('error', () => undefined);
  const digest = (slot: number): string => Buffer.from(digests.subarray(slot * HEX, (slot + 1) * HEX)).toString('latin1');
  /** Waits while the worker is in `state`; FAILED when it stalls. */
  const waitWhile = (state: number): number => waitFor(control, STATE, BEAT, state) ?? FAILED;
  const request = (what: number): void => {
    Atomics.store(control, REQUEST, what);
    Atomics.notify(control, REQUEST);
  };
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    request(STOP);
    void worker.terminate();
  };
  return {
    prefix() {
      const state = done ? Atomics.load(control, STATE) : waitWhile(WORKING);
      return state === PREFIX_DONE || state === ALL_DONE ? digest(0) : undefined;
    },
    through(end) {
      if (done || waitWhile(WORKING) === FAILED) return undefined;
      new Float64Array(shared, END_AT, 1)[0] = end;
      request(GO_ON);
      const state = waitWhile(PREFIX_DONE);
      done = true;
      void worker.terminate();
      return state === ALL_DONE ? { whole: digest(1), tail: digest(2) } : undefined;
    },
    stop: finish,
  };
}
