/**
 * Generated sessions for the writer's real-process tests: a chain of
 * user/assistant rows shaped like Claude Code's (parentUuid → uuid, one
 * sessionId, ISO timestamps a second apart), padded to a target size, with
 * one phantom parent in the middle that `fix --yes` relinks (a safe fix
 * that changes one line and no uuid). Also the rows a live session appends.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

export const BIG_SID = '5e551011-0000-4000-8000-00000000b16e';

/** A deterministic uuid for row `n` of a stream named `stream`. */
export function rowUuid(stream: string, n: number): string {
  const h = createHash('sha256').update(`${stream}:${n}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const T0 = Date.parse('2025-06-01T10:00:00.000Z');

/** One row, as Claude Code writes it. */
export function row(stream: string, n: number, parent: string | null, pad: number, sid = BIG_SID): string {
  const type = n % 2 === 0 ? 'user' : 'assistant';
  const content =
    type === 'user'
      ? JSON.stringify(`question ${n} ${'q'.repeat(pad)}`)
      : JSON.stringify([{ type: 'text', text: `answer ${n} ${'a'.repeat(pad)}` }]);
  const message =
    type === 'user'
      ? `{"role":"user","content":${content}}`
      : `{"id":"msg_${stream}_${n}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":${content},"stop_reason":"end_turn"}`;
  return `{"parentUuid":${parent === null ? 'null' : `"${parent}"`},"isSidechain":false,"userType":"external","cwd":"/tmp/app","sessionId":"${sid}","version":"2.0.0","type":"${type}","message":${message},"uuid":"${rowUuid(stream, n)}","timestamp":"${new Date(T0 + n * 1000).toISOString()}"}`;
}

/**
 * A session of about `bytes` bytes (at least 8 rows) whose row in the middle
 * has a phantom parent. Ends with a newline.
 */
export function brokenSession(bytes: number, pad = 900, sid = BIG_SID): { text: Buffer; rows: number; last: string } {
  const approx = 400 + pad;
  const rows = Math.max(8, Math.round(bytes / approx)) & ~1;
  const broken = (rows / 2) & ~1; // a user row
  const parts: string[] = [];
  let parent: string | null = null;
  for (let n = 0; n < rows; n++) {
    const p = n === broken ? rowUuid('phantom', 0) : parent;
    parts.push(row('main', n, p, pad, sid));
    parent = rowUuid('main', n);
  }
  return { text: Buffer.from(`${parts.join('\n')}\n`), rows, last: parent as string };
}

/**
 * A row of a session that works with tools, as most long sessions do: an
 * assistant row calls a tool, the next user row carries its result, and
 * every twentieth user row is a typed prompt (after a plain answer).
 */
export function toolRow(stream: string, n: number, parent: string | null, pad: number, sid = BIG_SID): string {
  if (n % 2 === 0 && n % 40 !== 0) {
    const result = JSON.stringify([{ type: 'tool_result', tool_use_id: `toolu_${stream}_${n - 1}`, content: `output ${n} ${'o'.repeat(pad)}` }]);
    return `{"parentUuid":"${parent}","isSidechain":false,"userType":"external","cwd":"/tmp/app","sessionId":"${sid}","version":"2.0.0","type":"user","message":{"role":"user","content":${result}},"uuid":"${rowUuid(stream, n)}","timestamp":"${new Date(T0 + n * 1000).toISOString()}"}`;
  }
  if (n % 2 === 1 && (n + 1) % 40 !== 0) {
    const content = JSON.stringify([
      { type: 'text', text: `answer ${n} ${'a'.repeat(Math.floor(pad / 4))}` },
      { type: 'tool_use', id: `toolu_${stream}_${n}`, name: 'Bash', input: { command: `ls ${n}` } },
    ]);
    return `{"parentUuid":"${parent}","isSidechain":false,"userType":"external","cwd":"/tmp/app","sessionId":"${sid}","version":"2.0.0","type":"assistant","message":{"id":"msg_${stream}_${n}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":${content},"stop_reason":"tool_use"},"uuid":"${rowUuid(stream, n)}","timestamp":"${new Date(T0 + n * 1000).toISOString()}"}`;
  }
  return row(stream, n, parent, pad, sid);
}

/**
 * {@link brokenSession} written straight to `file` in batches, for sizes a
 * string or a buffer cannot hold (a 1 GB session). `rows` makes each row
 * ({@link row}: typed prompts and answers; {@link toolRow}: tool calls and
 * results). Returns the row count.
 */
export function writeBrokenSession(file: string, bytes: number, pad = 900, sid = BIG_SID, rowOf = row): number {
  const fd = fs.openSync(file, 'w');
  let n = 0;
  try {
    let batch: string[] = [];
    let parent: string | null = null;
    let written = 0;
    let broken = false;
    // Rows until the file has its size (and an even count, ending on an answer); the row at half of it gets a phantom parent.
    while (written < bytes || n < 8 || n % 2 === 1) {
      const phantom = !broken && n % 2 === 0 && n > 0 && written >= bytes / 2;
      if (phantom) broken = true;
      const text = rowOf('main', n, phantom ? rowUuid('phantom', 0) : parent, pad, sid);
      batch.push(text);
      written += text.length + 1;
      parent = rowUuid('main', n);
      n++;
      if (batch.length === 1000) {
        fs.writeSync(fd, `${batch.join('\n')}\n`);
        batch = [];
      }
    }
    if (batch.length > 0) fs.writeSync(fd, `${batch.join('\n')}\n`);
  } finally {
    fs.closeSync(fd);
  }
  return n;
}

/**
 * A session whose every row has the same timestamp (an imported or
 * normalised transcript): a linear user/assistant chain of about `records`
 * rows where every third row is an extra one, in turn a fork (a second
 * child of the previous chain row), an orphan with a null parent in
 * mid-file and an orphan with a phantom parent. Each orphan's repair looks
 * back through the rows written within the bridge window of it, which here
 * is every row of the file. Ends with a newline.
 */
export function sameTimeSession(records: number, sid = BIG_SID): string {
  const stamp = new Date(T0).toISOString();
  const parts: string[] = [];
  let parent: string | null = null;
  let chain = 0;
  let extras = 0;
  for (let n = 0; n < records; n++) {
    const uuid = rowUuid('same-time', n);
    let p: string | null;
    let type: 'user' | 'assistant';
    if (n % 3 === 2) {
      const kind = extras++ % 3;
      p = kind === 0 ? parent : kind === 1 ? null : rowUuid('phantom', n);
      type = 'assistant';
    } else {
      p = parent;
      type = chain++ % 2 === 0 ? 'user' : 'assistant';
      parent = uuid;
    }
    const message =
      type === 'user'
        ? `{"role":"user","content":${JSON.stringify(`question ${n}`)}}`
        : `{"id":"msg_same_${n}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"answer ${n}"}],"stop_reason":"end_turn"}`;
    parts.push(
      `{"parentUuid":${p === null ? 'null' : `"${p}"`},"isSidechain":false,"userType":"external","cwd":"/tmp/app","sessionId":"${sid}","version":"2.0.0","type":"${type}","message":${message},"uuid":"${uuid}","timestamp":"${stamp}"}`,
    );
  }
  return `${parts.join('\n')}\n`;
}
