/**
 * Deterministic record builders for rule tests and fixtures.
 *
 * Every builder returns a plain JSON object shaped like what Claude Code
 * writes, with its keys in the writer's order (`parentUuid` first, then
 * `isSidechain`, `userType`, `cwd`, `sessionId`, `version`, `type`,
 * `message`, `uuid`, `timestamp`), so that a fixture serialised with
 * {@link jsonl} also looks right to the byte-level fast paths.
 *
 * Nothing is random:
 * - short ids (`'u1'`, `'a2'`) map to fixed canonical lower-case UUIDs
 *   through a hash ({@link uuidOf}); a value that already is a canonical
 *   UUID is kept as it is;
 * - tool-use ids and `message.id`s are derived the same way
 *   ({@link toolUseIdOf}, {@link messageIdOf});
 * - timestamps come from a counter that starts at {@link T0} and advances
 *   one second per record ({@link resetClock}, or `gapMs`/`timestamp` on a
 *   single record).
 */
import { createHash } from 'node:crypto';
import type { JsonObject } from '../../src/core/types.js';

export type RecordSpec = JsonObject;

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function hex(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

/** The fixed canonical (v4-shaped, lower-case) UUID a short id stands for. */
export function uuidOf(id: string): string {
  if (CANONICAL_UUID.test(id)) return id;
  const h = hex(`uuid:${id}`);
  const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** A `toolu_…` id for a short tool-call name. */
export function toolUseIdOf(id: string): string {
  return id.startsWith('toolu_') ? id : `toolu_01${hex(`tool:${id}`).slice(0, 22)}`;
}

/** A `msg_…` API response id for a short name. */
export function messageIdOf(id: string): string {
  return id.startsWith('msg_') ? id : `msg_01${hex(`msg:${id}`).slice(0, 22)}`;
}

/** The session every builder writes unless told otherwise. */
export const SESSION_ID = uuidOf('session');
/** Launch directory; encodes to the default project folder {@link PROJECT_FOLDER}. */
export const CWD = '/home/u/proj';
export const PROJECT_FOLDER = '-home-u-proj';
export const VERSION = '2.1.29';

/** 2026-01-05T03:00:00.000Z: the first default timestamp after a reset. */
export const T0 = Date.UTC(2026, 0, 5, 3, 0, 0, 0);
const STEP_MS = 1_000;
let nextTime = T0;

/** Restarts the timestamp counter (at {@link T0} unless given). */
export function resetClock(start: number | string = T0): void {
  nextTime = typeof start === 'string' ? Date.parse(start) : start;
}

/** Moves the counter forward without writing a record (a pause in the session). */
export function tick(ms: number): void {
  nextTime += ms;
}

/** ISO-8601 UTC with milliseconds and `Z`, as Claude Code writes it. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function stamp(options: { timestamp?: string | undefined; gapMs?: number | undefined }): string {
  if (options.timestamp !== undefined) return options.timestamp;
  if (options.gapMs !== undefined) nextTime += options.gapMs - STEP_MS;
  const value = iso(nextTime);
  nextTime += STEP_MS;
  return value;
}

/** Options every chain-row builder takes. */
export interface CommonOptions {
  /** Short id or uuid of the parent; `null` (the default) for a root. */
  readonly parent?: string | null | undefined;
  /** Explicit timestamp (any string, so tests can write bad ones). */
  readonly timestamp?: string | undefined;
  /** Milliseconds since the previous default timestamp (default 1000). */
  readonly gapMs?: number | undefined;
  readonly isSidechain?: boolean | undefined;
  readonly sessionId?: string | undefined;
  readonly cwd?: string | undefined;
  readonly version?: string | undefined;
  /** Keys to leave out entirely (e.g. `['timestamp']`, `['parentUuid']`). */
  readonly omit?: readonly string[] | undefined;
  /**
   * Any other top-level fields. A key the builder already writes is replaced
   * in place (its position kept); a new key is appended.
   */
  readonly extra?: Readonly<JsonObject> | undefined;
}

function parentValue(parent: string | null | undefined): string | null {
  return parent === undefined || parent === null ? null : uuidOf(parent);
}

function envelope(o: CommonOptions): JsonObject {
  return {
    parentUuid: parentValue(o.parent),
    isSidechain: o.isSidechain ?? false,
    userType: 'external',
    cwd: o.cwd ?? CWD,
    sessionId: o.sessionId ?? SESSION_ID,
    version: o.version ?? VERSION,
  };
}

function finish(obj: JsonObject, o: CommonOptions): JsonObject {
  for (const [key, value] of Object.entries(o.extra ?? {})) obj[key] = value;
  for (const key of o.omit ?? []) delete obj[key];
  return obj;
}

export interface UserOptions extends CommonOptions {
  /** A typed prompt, written as a plain string (what Claude Code writes). */
  readonly text?: string | undefined;
  /** Explicit `message.content` (blocks, a string, or anything malformed). */
  readonly content?: unknown;
}

/** A user row: a typed prompt (string content) unless `content` is given. */
export function user(id: string, options: UserOptions = {}): JsonObject {
  const content = 'content' in options ? options.content : (options.text ?? `prompt ${id}`);
  return finish(
    {
      ...envelope(options),
      type: 'user',
      message: { role: 'user', content },
      uuid: uuidOf(id),
      timestamp: stamp(options),
    },
    options,
  );
}

export interface AssistantOptions extends CommonOptions {
  readonly text?: string | undefined;
  /** Short ids of tool calls; each becomes a `tool_use` block. */
  readonly toolUse?: readonly string[] | undefined;
  /** Short name of the API response; rows sharing it are one response. */
  readonly messageId?: string | undefined;
  /** Explicit `message.content`, replacing text and tool calls. */
  readonly content?: unknown;
}

/** An assistant row: one API response block (or several). */
export function assistant(id: string, options: AssistantOptions = {}): JsonObject {
  let content: unknown;
  if ('content' in options) {
    content = options.content;
  } else {
    const blocks: JsonObject[] = [];
    if (options.text !== undefined || options.toolUse === undefined) {
      blocks.push({ type: 'text', text: options.text ?? `reply ${id}` });
    }
    for (const call of options.toolUse ?? []) {
      blocks.push({ type: 'tool_use', id: toolUseIdOf(call), name: 'Bash', input: { command: `echo ${call}` } });
    }
    content = blocks;
  }
  return finish(
    {
      ...envelope(options),
      type: 'assistant',
      message: {
        model: 'claude-sonnet-4-5-20250929',
        id: messageIdOf(options.messageId ?? id),
        type: 'message',
        role: 'assistant',
        content,
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      },
      requestId: `req_011${hex(`req:${options.messageId ?? id}`).slice(0, 21)}`,
      uuid: uuidOf(id),
      timestamp: stamp(options),
    },
    options,
  );
}

export interface ToolResultOptions extends CommonOptions {
  /** Short id of the tool call answered. */
  readonly toolUseId?: string | undefined;
  /** Several results in one row. */
  readonly toolUseIds?: readonly string[] | undefined;
  /** Short id of the assistant row holding the call (`sourceToolAssistantUUID`). */
  readonly sourceToolAssistant?: string | undefined;
}

/** A user row that only carries tool results. */
export function toolResult(id: string, options: ToolResultOptions = {}): JsonObject {
  const ids = options.toolUseIds ?? (options.toolUseId === undefined ? [] : [options.toolUseId]);
  if (ids.length === 0) throw new Error(`toolResult(${id}): give toolUseId or toolUseIds`);
  const obj: JsonObject = {
    ...envelope(options),
    type: 'user',
    message: {
      role: 'user',
      content: ids.map((t) => ({ tool_use_id: toolUseIdOf(t), type: 'tool_result', content: `output of ${t}`, is_error: false })),
    },
    uuid: uuidOf(id),
    timestamp: stamp(options),
    toolUseResult: { stdout: 'ok', stderr: '', interrupted: false, isImage: false },
  };
  if (options.sourceToolAssistant !== undefined) obj.sourceToolAssistantUUID = uuidOf(options.sourceToolAssistant);
  return finish(obj, options);
}

export interface SystemOptions extends CommonOptions {
  readonly subtype?: string | undefined;
  readonly content?: string | undefined;
}

/** A system row (`turn_duration`, `local_command`, `api_error`, …). */
export function system(id: string, options: SystemOptions = {}): JsonObject {
  return finish(
    {
      ...envelope(options),
      type: 'system',
      subtype: options.subtype ?? 'informational',
      content: options.content ?? '',
      isMeta: false,
      timestamp: stamp(options),
      uuid: uuidOf(id),
      level: 'info',
    },
    options,
  );
}

export interface CompactBoundaryOptions extends Omit<CommonOptions, 'parent'> {
  /** Short id of the row the compaction followed (`logicalParentUuid`). */
  readonly logicalParent: string;
  readonly trigger?: 'auto' | 'manual' | undefined;
}

/** `system/compact_boundary`: `parentUuid: null`, the real predecessor in `logicalParentUuid`. */
export function compactBoundary(id: string, options: CompactBoundaryOptions): JsonObject {
  const env = envelope({ ...options, parent: null });
  return finish(
    {
      parentUuid: null,
      logicalParentUuid: uuidOf(options.logicalParent),
      ...env,
      type: 'system',
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      isMeta: false,
      timestamp: stamp(options),
      uuid: uuidOf(id),
      level: 'info',
      compactMetadata: { trigger: options.trigger ?? 'manual', preTokens: 48_213 },
    },
    options,
  );
}

/** The summary user row written right after a compact boundary. */
export function compactSummary(id: string, options: UserOptions): JsonObject {
  return user(id, {
    ...options,
    text: options.text ?? 'This session is being continued from a previous conversation…',
    extra: { isVisibleInTranscriptOnly: true, isCompactSummary: true, ...options.extra },
  });
}

export interface ProgressOptions extends CommonOptions {
  readonly toolUseId?: string | undefined;
}

/** A `progress` row (hook or tool progress; not stored by the loader). */
export function progress(id: string, options: ProgressOptions = {}): JsonObject {
  return finish(
    {
      ...envelope(options),
      type: 'progress',
      data: { type: 'hook_progress', hookEvent: 'PostToolUse' },
      toolUseID: toolUseIdOf(options.toolUseId ?? id),
      parentToolUseID: toolUseIdOf(options.toolUseId ?? id),
      uuid: uuidOf(id),
      timestamp: stamp(options),
    },
    options,
  );
}

/** `last-prompt`: picker text and leaf checkpoint (`leaf: null` clears). */
export function lastPrompt(options: {
  leaf?: string | null | undefined;
  lastPrompt?: string | undefined;
  explicit?: boolean | undefined;
  sessionId?: string | undefined;
} = {}): JsonObject {
  const obj: JsonObject = { type: 'last-prompt', lastPrompt: options.lastPrompt ?? 'last prompt' };
  if (options.leaf !== undefined) obj.leafUuid = options.leaf === null ? null : uuidOf(options.leaf);
  if (options.explicit !== undefined) obj.explicit = options.explicit;
  obj.sessionId = options.sessionId ?? SESSION_ID;
  return obj;
}

/** Legacy `summary` title row (no uuid of its own). */
export function summary(options: { leaf?: string | undefined; summary?: string | undefined } = {}): JsonObject {
  const obj: JsonObject = { type: 'summary', summary: options.summary ?? 'A session title' };
  if (options.leaf !== undefined) obj.leafUuid = uuidOf(options.leaf);
  return obj;
}

/** `file-history-snapshot` keyed by a user row's uuid (by design, not a collision). */
export function fileHistorySnapshot(forUser: string): JsonObject {
  const messageId = uuidOf(forUser);
  return {
    type: 'file-history-snapshot',
    messageId,
    snapshot: { messageId, trackedFileBackups: {}, timestamp: iso(T0) },
    isSnapshotUpdate: false,
  };
}

/** Compact JSON lines with a final newline (empty string for no records). */
export function jsonl(records: readonly JsonObject[]): string {
  return records.length === 0 ? '' : `${records.map((r) => JSON.stringify(r)).join('\n')}\n`;
}
