/**
 * A stand-in for a live Claude Code in the writer's real-process tests:
 * appends chained rows to a session the way Claude Code does (open, append
 * one line, close), each row's parentUuid the uuid of the row before, one
 * every `intervalMs` (0: as fast as it can), until its stdin closes. Prints
 * "started" after the first row and, at the end, "appended <n>".
 *
 * Usage: node appender-child.mjs <file> <first-parent-uuid> <sessionId> <intervalMs>
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

const [file, firstParent, sid, interval] = process.argv.slice(2);
const intervalMs = Number(interval ?? '1');
const uuid = (n) => {
  const h = createHash('sha256').update(`live:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};
let stop = false;
process.stdin.on('end', () => {
  stop = true;
});
process.stdin.on('close', () => {
  stop = true;
});
process.stdin.resume();

let n = 0;
let parent = firstParent;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
while (!stop) {
  const id = uuid(n);
  const line = `{"parentUuid":"${parent}","isSidechain":false,"userType":"external","cwd":"/tmp/app","sessionId":"${sid}","type":"user","message":{"role":"user","content":"live line ${n}"},"uuid":"${id}","timestamp":"${new Date(Date.parse('2025-06-02T00:00:00Z') + n * 1000).toISOString()}","live":${n}}\n`;
  fs.appendFileSync(file, line);
  if (n === 0) process.stdout.write('started\n');
  parent = id;
  n++;
  // Yield to the event loop (so stdin's end is seen), then wait.
  await sleep(intervalMs);
}
process.stdout.write(`appended ${n}\n`);
