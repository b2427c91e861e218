/**
 * The request `claude --resume` (CLI 2.1.330) sends, checked against the
 * Messages API's validation rules: would the first prompt after resuming
 * end in `API Error: 400`?
 *
 * The message list comes from the CLI model (resume-cli.ts,
 * {@link requestMessages}); this module rebuilds each message's blocks as
 * the CLI normalises them before a request (format.md §8, and measured on
 * the binary):
 *
 * - assistant messages lose blank text blocks, blocks of unknown types and
 *   a `tool_use` whose id appeared before; a `server_tool_use` without its
 *   result in the same message is removed while its result stays; a
 *   response left with nothing but thinking is not sent; the tool calls of
 *   a merged message go after its other blocks;
 * - user rows go as written: a string prompt that is blank is sent as a
 *   blank text block when it makes a user message on its own (merged with
 *   the rows next to it, or in array form, the CLI drops or replaces the
 *   blank block); thinking blocks and images are never changed.
 *
 * The rules checked are the ones a transcript can break that the CLI does
 * not repair, each with the error text the API returns for it. Only the
 * rows of the request are read again from the file, and only where the
 * summary cannot answer (server tool ids, the texts of a thinking
 * signature that occurs twice).
 */
import { requestMessages, type ApiMessage } from './resume-cli.js';
import type { ImageFacts, RecordSummary } from './records.js';
import type { SessionIndex } from './session-index.js';
import type { ApiViolationSummary, JsonObject } from './types.js';

export type ApiRuleId =
  | 'thinking-not-first'
  | 'server-tool-result-without-use'
  | 'empty-text'
  | 'whitespace-text'
  | 'thinking-signature-missing'
  | 'thinking-modified'
  | 'thinking-modified-latest'
  | 'thinking-merged-latest'
  | 'image-too-large'
  | 'image-dimensions'
  | 'image-dimensions-many';

/** The error text the API answers for each rule (as users see it after `API Error: 400`). */
export const API_ERROR_TEXT: Readonly<Record<ApiRuleId, string>> = {
  'thinking-not-first':
    'If an assistant message contains any thinking blocks, the first block must be thinking or redacted_thinking.',
  'server-tool-result-without-use':
    'unexpected `tool_use_id` found in `web_search_tool_result` blocks. Each `web_search_tool_result` block must have a corresponding `server_tool_use` block before it.',
  'empty-text': 'text content blocks must be non-empty',
  'whitespace-text': 'text content blocks must contain non-whitespace text',
  'thinking-signature-missing': 'Invalid `signature` in `thinking` block',
  'thinking-modified': 'Invalid `signature` in `thinking` block',
  'thinking-modified-latest':
    '`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.',
  'thinking-merged-latest':
    '`thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.',
  'image-too-large': 'image exceeds 5 MB maximum',
  'image-dimensions': 'At least one of the image dimensions exceed max allowed size: 8000 pixels',
  'image-dimensions-many': 'At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels',
};

/** The API's limits on images (base64 characters, pixels, images in one request). */
export const IMAGE_LIMITS = { bytes: 5 * 1024 * 1024, side: 8000, manySide: 2000, many: 20 } as const;

export interface ApiViolation {
  readonly rule: ApiRuleId;
  /** The row whose content breaks the rule. */
  readonly record: RecordSummary;
  /** The API's error text for it. */
  readonly message: string;
}

export interface RequestCheck {
  /** No rule is broken: the resumed session's first request is accepted. */
  readonly valid: boolean;
  readonly violations: readonly ApiViolation[];
  /** Images in the request (the many-image limit applies above {@link IMAGE_LIMITS.many}). */
  readonly imageCount: number;
  /** The row's content is part of the request. */
  carries(record: RecordSummary): boolean;
}

interface Block {
  readonly kind: string;
  readonly row: RecordSummary;
  /** Position of the block in its row's content. */
  readonly at: number;
}

const isThinking = (kind: string): boolean => kind === 'k' || kind === 'K' || kind === 'r';

/** The content blocks of a row, re-read from the file. */
function contentOf(index: SessionIndex, row: RecordSummary): readonly JsonObject[] {
  const content = (index.recordObject(row)?.message as JsonObject | undefined)?.content;
  return Array.isArray(content) ? (content as JsonObject[]) : [];
}

/** The thinking block of `row` whose signature ends with `key`: its whole signature and its text. */
function thinkingOf(index: SessionIndex, row: RecordSummary, key: string): { signature: string; text: string } | undefined {
  for (const b of contentOf(index, row)) {
    if (b?.type === 'thinking' && typeof b.signature === 'string' && b.signature.endsWith(key)) {
      return { signature: b.signature, text: typeof b.thinking === 'string' ? b.thinking : '' };
    }
  }
  return undefined;
}

/**
 * The first row in file order carrying each thinking signature that occurs
 * on more than one row: the original response, as far as the file tells.
 */
export function repeatedSignatures(index: SessionIndex): ReadonlyMap<string, readonly RecordSummary[]> {
  let repeated = repeatedByIndex.get(index);
  if (repeated === undefined) {
    repeated = findRepeatedSignatures(index);
    repeatedByIndex.set(index, repeated);
  }
  return repeated;
}

/** Per index, {@link repeatedSignatures}' answer: the rule and {@link editedThinking} both ask. */
const repeatedByIndex = new WeakMap<SessionIndex, ReadonlyMap<string, readonly RecordSummary[]>>();

function findRepeatedSignatures(index: SessionIndex): ReadonlyMap<string, readonly RecordSummary[]> {
  const rows = new Map<string, RecordSummary[]>();
  for (const r of index.records) {
    for (const key of r.signatureKeys) {
      const list = rows.get(key);
      if (list === undefined) rows.set(key, [r]);
      else if (!list.includes(r)) list.push(r);
    }
  }
  for (const [key, list] of rows) if (list.length < 2) rows.delete(key);
  return rows;
}

/** Per index, {@link editedThinking}'s answer: the rule and the request check both ask. */
const editedByIndex = new WeakMap<SessionIndex, ReadonlyMap<RecordSummary, ReadonlySet<string>>>();

/**
 * The rows that carry a thinking signature which an earlier row carries
 * with another text (the later one was edited), with the signature keys
 * concerned. Each row is read back once: comparing pair by pair read the
 * first row of a signature again for every later one, and the rule and the
 * request check each did it all (on a session made of one conversation
 * repeated, a third of a second of a five-second check).
 */
export function editedThinking(index: SessionIndex): ReadonlyMap<RecordSummary, ReadonlySet<string>> {
  let edited = editedByIndex.get(index);
  if (edited !== undefined) return edited;
  const found = new Map<RecordSummary, Set<string>>();
  for (const [key, rows] of repeatedSignatures(index)) {
    const original = thinkingOf(index, rows[0] as RecordSummary, key);
    if (original === undefined) continue;
    for (const row of rows.slice(1)) {
      const other = thinkingOf(index, row, key);
      if (other === undefined || other.signature !== original.signature || other.text === original.text) continue;
      const keys = found.get(row);
      if (keys === undefined) found.set(row, new Set([key]));
      else keys.add(key);
    }
  }
  edited = found;
  editedByIndex.set(index, edited);
  return edited;
}

/** A row the CLI's merge of a response does not reach past (measured: user rows and local command output). */
export function splitsResponse(r: RecordSummary): boolean {
  return r.type === 'user' || (r.type === 'system' && r.subtype === 'local_command');
}

/** A server tool result whose call is cut off from it by rows of another kind. */
export interface ServerSplit {
  readonly result: RecordSummary;
  /** The row of the same response holding the call. */
  readonly call: RecordSummary;
  /** The rows in the way, in file order. */
  readonly between: readonly RecordSummary[];
}

/**
 * Where the rows of one response holding a server tool call and its result
 * are cut apart by a user row or local command output. Measured on the
 * binary: the CLI puts the rows of a response back in file order, with the
 * rows that hang from them, so a row in the way counts whether it lies on
 * the result's parent path or hangs from a row of the response and was
 * written between the call and the result.
 */
export function serverSplit(index: SessionIndex, result: RecordSummary): ServerSplit | undefined {
  if (result.type !== 'assistant' || result.messageId === undefined || !result.blocks.includes('S')) return undefined;
  const rows = index.responseRows(result);
  const call = rows.filter((r) => r.ordinal < result.ordinal && r.blocks.includes('s')).pop();
  if (call === undefined) return undefined;
  const response = new Set(rows);
  const between = new Set<RecordSummary>();
  // On the result's parent path, up to the first row of the response.
  let p = index.parentOf(result);
  for (let steps = 0; p !== undefined && !response.has(p) && steps < 10_000; steps++) {
    between.add(p);
    p = index.parentOf(p);
  }
  if (p === undefined) return undefined;
  // Hanging from the response, written between the call and the result.
  for (let o = call.ordinal + 1; o < result.ordinal; o++) {
    const r = index.records[o] as RecordSummary;
    if (between.has(r) || !splitsResponse(r) || !index.isEffective(r)) continue;
    const parent = index.parentOf(r);
    if (parent !== undefined && (response.has(parent) || between.has(parent))) between.add(r);
  }
  const inTheWay = [...between].some((r) => splitsResponse(r) && r.ordinal > call.ordinal && r.ordinal < result.ordinal);
  if (!inTheWay) return undefined;
  return { result, call, between: [...between].sort((a, b) => a.ordinal - b.ordinal) };
}

/** Why an image breaks a limit, if it does. */
export function imageProblem(image: ImageFacts, imagesInRequest: number): ApiRuleId | undefined {
  if (image.bytes > IMAGE_LIMITS.bytes) return 'image-too-large';
  const side = Math.max(image.width, image.height);
  if (side > IMAGE_LIMITS.side) return 'image-dimensions';
  if (imagesInRequest > IMAGE_LIMITS.many && side > IMAGE_LIMITS.manySide) return 'image-dimensions-many';
  return undefined;
}

/** The blocks of an assistant message as the CLI sends them, and the violations of server tool pairing. */
function assistantBlocks(
  index: SessionIndex,
  m: ApiMessage,
  seenCalls: Set<string>,
  add: (rule: ApiRuleId, record: RecordSummary) => void,
): Block[] {
  const blocks: Block[] = [];
  let server = false;
  for (const row of m.rows) {
    let call = 0;
    for (let at = 0; at < row.blocks.length; at++) {
      const kind = row.blocks[at] as string;
      if (kind === 'b' || kind === 'o') continue;
      if (kind === 'u') {
        const id = row.toolUseIds[call++];
        if (id === undefined || seenCalls.has(id)) continue;
        seenCalls.add(id);
      }
      if (kind === 's' || kind === 'S') server = true;
      blocks.push({ kind, row, at });
    }
  }
  if (!server) return blocks;
  // Server tool calls are answered inside the same message: read their ids.
  const idOf = (b: Block): string | undefined => {
    const block = contentOf(index, b.row)[b.at];
    const id = b.kind === 's' ? block?.id : block?.tool_use_id;
    return typeof id === 'string' ? id : undefined;
  };
  const results = new Map<string, number>();
  blocks.forEach((b, i) => {
    const id = b.kind === 'S' ? idOf(b) : undefined;
    if (id !== undefined && !results.has(id)) results.set(id, i);
  });
  const calls = new Set<string>();
  const out: Block[] = [];
  blocks.forEach((b, i) => {
    if (b.kind === 's') {
      const id = idOf(b);
      // A call without its result later in the message is removed.
      if (id === undefined || (results.get(id) ?? -1) < i) return;
      calls.add(id);
    } else if (b.kind === 'S') {
      const id = idOf(b);
      if (id === undefined || !calls.has(id)) add('server-tool-result-without-use', b.row);
    }
    out.push(b);
  });
  return out;
}

export function checkRequest(index: SessionIndex, chain: readonly RecordSummary[]): RequestCheck {
  const messages = requestMessages(chain);
  const violations: ApiViolation[] = [];
  const add = (rule: ApiRuleId, record: RecordSummary): void => {
    violations.push({ rule, record, message: API_ERROR_TEXT[rule] });
  };
  // By ordinal: the rows sent, on a chain of hundreds of thousands.
  const carried = new Uint8Array(index.records.length);
  let edited: ReadonlyMap<RecordSummary, ReadonlySet<string>> | undefined;
  // The assistant messages sent, by position. Their blocks are not kept:
  // on a session of hundreds of thousands of rows they were the largest
  // thing alive at the end of a check. They are built again below, in the
  // same order: a message that is not sent has no tool call, so it leaves
  // the tool calls seen unchanged and the second pass builds the same blocks.
  const sent: number[] = [];
  let seenCalls = new Set<string>();
  messages.forEach((m, at) => {
    if (m.role !== 'assistant') return;
    const blocks = assistantBlocks(index, m, seenCalls, add);
    // A response left with nothing but thinking is not sent.
    if (blocks.some((b) => 'tuisSd'.includes(b.kind))) sent.push(at);
  });
  // Measured: when local command rows (`/exit`, `/clear` and their output)
  // follow the last response, the CLI adds an assistant message of its own
  // ("No response requested."), which is then the latest one.
  const lastSent = sent.length === 0 ? messages.length : (sent[sent.length - 1] as number);
  const after = messages.slice(lastSent + 1);
  const quietTurn = after.some((m) => m.role === 'user' && m.rows.some((r) => r.type === 'user' && r.commandTag !== undefined));
  const latest = quietTurn || sent.length === 0 ? undefined : messages[lastSent];
  seenCalls = new Set<string>();
  const reported = (): void => {}; // the first pass reported the pairing of server tools
  for (const at of sent) {
    const m = messages[at] as ApiMessage;
    const blocks = assistantBlocks(index, m, seenCalls, reported);
    for (const b of blocks) carried[b.row.ordinal] = 1;
    for (const b of blocks) {
      if (b.kind !== 'S' || violations.some((v) => v.record === b.row)) continue;
      // A row hanging from the response between call and result: the CLI puts it back in file order.
      if (serverSplit(index, b.row) !== undefined) add('server-tool-result-without-use', b.row);
    }
    // The CLI puts a merged message's tool calls after its other blocks.
    const first = blocks.find((b) => b.kind !== 'u') ?? blocks[0];
    if (first !== undefined && !isThinking(first.kind) && blocks.some((b) => isThinking(b.kind))) add('thinking-not-first', first.row);
    for (const b of blocks) if (b.kind === 'K') add('thinking-signature-missing', b.row);
    const signed = blocks.filter((b) => b.kind === 'k');
    if (signed.length > 0) {
      edited ??= editedThinking(index);
      const done = new Set<RecordSummary>();
      for (const b of signed) {
        if (done.has(b.row)) continue;
        done.add(b.row);
        const keys = edited.get(b.row);
        if (keys === undefined) continue;
        // One report per key, as many as the row's keys that were edited.
        for (const key of b.row.signatureKeys) {
          if (keys.has(key)) add(m === latest ? 'thinking-modified-latest' : 'thinking-modified', b.row);
        }
      }
    }
    if (m === latest && m.joinedAcross.length > 0) {
      // Thinking of two API calls in the latest message: the CLI merged a
      // later response that reused this one's message.id.
      const joined = m.rows.indexOf(m.joinedAcross[0] as RecordSummary);
      const thinkingRows = blocks.filter((b) => isThinking(b.kind)).map((b) => m.rows.indexOf(b.row));
      if (thinkingRows.some((i) => i < joined) && thinkingRows.some((i) => i >= joined)) {
        add('thinking-merged-latest', m.joinedAcross[0] as RecordSummary);
      }
    }
  }
  const withImages: RecordSummary[] = [];
  let imageCount = 0;
  for (const m of messages) {
    if (m.role !== 'user') continue;
    for (const row of m.rows) {
      if (row.type !== 'user') continue;
      carried[row.ordinal] = 1;
      // Measured: merged with other rows into one user message, a blank
      // string becomes a text block the CLI drops; alone it is sent as is.
      if (row.content === 'string' && row.blocks === 'b' && m.rows.length === 1) add(row.excerpt === '' ? 'empty-text' : 'whitespace-text', row);
      if (row.images.length > 0) {
        withImages.push(row);
        imageCount += row.images.length;
      }
    }
  }
  for (const row of withImages) {
    for (const image of row.images) {
      const problem = imageProblem(image, imageCount);
      if (problem !== undefined) add(problem, row);
    }
  }
  return { valid: violations.length === 0, violations, imageCount, carries: (r) => carried[r.ordinal] === 1 };
}

/** The violations as reported: one per rule and row, in line order. */
export function violationSummaries(check: RequestCheck): ApiViolationSummary[] {
  const seen = new Set<string>();
  const out: ApiViolationSummary[] = [];
  for (const v of [...check.violations].sort((a, b) => a.record.line - b.record.line)) {
    const key = `${v.rule}:${v.record.ordinal}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ rule: v.rule, line: v.record.line, ...(v.record.uuid === undefined ? {} : { uuid: v.record.uuid }), message: v.message });
  }
  return out;
}
