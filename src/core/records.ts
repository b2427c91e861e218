/**
 * Transcript records: their schemas, and the compact summary the session
 * index keeps of each one.
 *
 * The record types follow Claude Code 2.1.330 (format.md §4); their zod
 * schemas live in schemas.ts, used where a record is written. A type cclint
 * does not know is simply "unknown", never invalid: Claude Code adds inert
 * record types every few releases, and a linter that rejects them drowns
 * users in noise.
 *
 * The index does not keep parsed objects. A 700 MB session would not fit in
 * memory that way; instead each line is summarised into the handful of fields
 * the rules, the resume model and the fixer need, and the raw line can be
 * re-read by offset when a fix needs the full record.
 */
import type { JsonObject } from './types.js';

/** Record types with a schema in schemas.ts (the ones whose fields cclint reads). */
export const SCHEMA_RECORD_TYPES: ReadonlySet<string> = new Set([
  'user',
  'assistant',
  'system',
  'attachment',
  'progress',
  'summary',
  'last-prompt',
  'file-history-snapshot',
  'custom-title',
  'ai-title',
  'tag',
  'relocated',
  'queue-operation',
  'continued-in',
]);

/** Record types Claude Code 2.1.330 knows and a linter should accept silently. */
export const INERT_RECORD_TYPES: ReadonlySet<string> = new Set([
  'agent-name',
  'agent-color',
  'agent-setting',
  'mode',
  'permission-mode',
  'isolation-latch',
  'repl-mode',
  'worktree-state',
  'pr-link',
  'bridge-session',
  'session-owner',
  'dev-mods',
  'memory-mode',
  'atis-latch',
  'tools-used',
  'cost-state',
  'history-suppression',
  'ended-by-model',
  'hybrid-organization',
  'file-history-delta',
  'attribution-snapshot',
  'content-replacement',
  'data-flow-records',
  'data-flow-incomplete',
  'derived-from',
  'fork-context-ref',
  'api-request',
  'api-request-start',
  'api-request-end',
  'frame-link',
  'observer-ref',
  'resume-head-vouch',
  'host-row',
  // Written by older versions or the SDK and still found in real folders.
  'result',
  'started',
  'checkpoint',
]);

export function isKnownRecordType(type: string): boolean {
  return SCHEMA_RECORD_TYPES.has(type) || INERT_RECORD_TYPES.has(type) || type.startsWith('artifact-');
}

/** Chain rows: the records Claude Code's loader keeps in its uuid map. */
export const CHAIN_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'attachment']);

export type ContentShape = 'string' | 'array' | 'other' | 'absent';

/**
 * Strings the index shares between records, by field: the `sessionId` (0),
 * kept by every record, bookkeeping rows too; a `message.id` (1), repeated
 * on the consecutive rows of one response; and a `parentUuid` (2), which is
 * the `uuid` of a record already read. (A record's other envelope fields are
 * shared through its {@link Envelope}.)
 */
export type InternedField = typeof SESSION_ID_FIELD | typeof MESSAGE_ID_FIELD | typeof PARENT_UUID_FIELD;
export const SESSION_ID_FIELD = 0;
export const MESSAGE_ID_FIELD = 1;
export const PARENT_UUID_FIELD = 2;

/** How a record was recovered from a damaged line (see parse-line.ts). */
export type Recovery = 'nul-leading' | 'nul-stripped' | 'glued-split';

/** Partial-compaction info of a compact boundary (format.md §5). */
export interface PreservedInfo {
  readonly anchorUuid: string | undefined;
  /** `preservedMessages.uuids`, or undefined when malformed. */
  readonly uuids?: readonly string[] | undefined;
  readonly headUuid?: string | undefined;
  readonly tailUuid?: string | undefined;
  readonly kind: 'messages' | 'segment';
}

/**
 * What the index keeps of one record. Strings that repeat on every line
 * (`cwd`, `sessionId`) are shared between records.
 */
export interface RecordSummary {
  /** Position in the index's record array (file order). */
  readonly ordinal: number;
  /** 1-based physical line. Two glued records share a line. */
  readonly line: number;
  readonly type: string;
  readonly subtype: string | undefined;
  readonly uuid: string | undefined;
  /** `undefined` when the key is absent; `null` for an explicit null. */
  readonly parentUuid: string | null | undefined;
  /** The key is present but holds neither a string nor null. */
  readonly parentUuidMalformed: boolean;
  readonly logicalParentUuid: string | undefined;
  readonly isSidechain: boolean;
  readonly timestamp: string | undefined;
  /** `Date.parse(timestamp)`, NaN when absent or unreadable. */
  readonly time: number;
  readonly sessionId: string | undefined;
  readonly cwd: string | undefined;
  /** The session's `slug` envelope field; kept across continuations of one conversation. */
  readonly slug: string | undefined;
  readonly agentId: string | undefined;
  readonly isMeta: boolean;
  readonly isCompactSummary: boolean;
  readonly messageId: string | undefined;
  readonly content: ContentShape;
  /** A user/assistant row whose body Claude Code would drop (row repair). */
  readonly bodyMalformed: boolean;
  readonly toolUseIds: readonly string[];
  /** `name` of each `tool_use` block, in block order (for display). */
  readonly toolNames: readonly string[];
  readonly toolResultIds: readonly string[];
  readonly sourceToolAssistantUuid: string | undefined;
  /** The first characters of the text a person typed or read; no more. */
  readonly excerpt: string;
  /** For `last-prompt` rows. */
  readonly leafUuid: string | null | undefined;
  readonly explicit: boolean;
  readonly recovery: Recovery | undefined;
  /** Written by an agent team member: never a resume leaf. */
  readonly teamName: boolean;
  /** `attachment.type` of attachment rows. */
  readonly attachmentType: string | undefined;
  /** `origin.kind` (meta rows from some origins are shown to the person). */
  readonly originKind: string | undefined;
  /** An assistant row closing a quiet turn with an empty or "No response requested." text. */
  readonly quietReply: boolean;
  /** Partial-compaction info; only on compact boundaries that carry it. */
  readonly preserved: PreservedInfo | undefined;
  /** A `queued_command` attachment: a message typed while a turn was running. */
  readonly queued: QueuedCommand | undefined;
  /** A user row whose text is a local-command tag (`<command-name>` …). */
  readonly commandTag: 'record' | 'output' | 'caveat' | undefined;
  /** A user row that only says the turn was interrupted. */
  readonly interrupt: boolean;
  /**
   * An assistant row Claude Code wrote itself for a failed API call
   * (`isApiErrorMessage` and the `<synthetic>` model): the CLI leaves it out
   * of the request it sends on resume (measured; either mark alone is sent).
   */
  readonly apiError: boolean;
  /**
   * The kinds of the message's content blocks, one letter each, in block
   * order (see {@link BlockKind}); a string content is one text block. What
   * the resume model needs to know of a body to rebuild the request the CLI
   * sends, without keeping the body.
   */
  readonly blocks: string;
  /**
   * `blocks` rests on a blank test of a text with non-ASCII characters, which
   * only the UTF-8 decoding of the line answers (see judgedByWholeText).
   */
  readonly blankTestedWhole: boolean;
  /**
   * A key per signed thinking block (the signature's last characters), in
   * block order: enough to find two rows that carry one signature, whose
   * texts a rule then compares by reading both rows.
   */
  readonly signatureKeys: readonly string[];
  /** Base64 images of the content, top-level and inside tool results, in order. */
  readonly images: readonly ImageFacts[];
}

/** What the API's image limits look at: the size of the base64 data and the dimensions its header gives. */
export interface ImageFacts {
  /** Characters of base64 data. */
  readonly bytes: number;
  /** 0 when the header could not be read. */
  readonly width: number;
  readonly height: number;
  /** `png`, `jpeg`, `gif`, `webp`, or undefined. */
  readonly format: string | undefined;
  /** Inside a tool_result's content rather than a block of the message itself. */
  readonly nested: boolean;
}

/** Reads width and height from the header of a PNG, JPEG, GIF or WebP image given as base64. */
export function imageDimensions(base64: string, prefix = 64): { width: number; height: number; format: string | undefined } {
  const none = { width: 0, height: 0, format: undefined };
  // Every check of every session reads this, so decode only what the header
  // needs (a multiple of 4 characters): 48 bytes answer PNG, GIF and WebP.
  // A JPEG's size marker follows its other segments (EXIF can be long):
  // look 16 times further each time, for that one only.
  const buf = Buffer.from(base64.length > prefix ? base64.slice(0, prefix) : base64, 'base64');
  if (buf.length >= 24 && buf.readUInt32BE(0) === 0x89504e47) return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20), format: 'png' };
  if (buf.length >= 10 && buf.toString('latin1', 0, 3) === 'GIF') return { width: buf.readUInt16LE(6), height: buf.readUInt16LE(8), format: 'gif' };
  if (buf.length >= 30 && buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP') {
    const chunk = buf.toString('latin1', 12, 16);
    if (chunk === 'VP8X') return { width: 1 + buf.readUIntLE(24, 3), height: 1 + buf.readUIntLE(27, 3), format: 'webp' };
    if (chunk === 'VP8 ') return { width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff, format: 'webp' };
    if (chunk === 'VP8L') {
      const v = buf.readUInt32LE(21);
      return { width: 1 + (v & 0x3fff), height: 1 + ((v >> 14) & 0x3fff), format: 'webp' };
    }
    return { ...none, format: 'webp' };
  }
  if (buf.length >= 4 && buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) {
        i++;
        continue;
      }
      const marker = buf[i + 1] as number;
      // Start-of-frame markers (not DHT, JPG, DAC) carry the size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: buf.readUInt16BE(i + 7), height: buf.readUInt16BE(i + 5), format: 'jpeg' };
      }
      i += 2 + buf.readUInt16BE(i + 2);
    }
    if (base64.length > prefix && prefix < 1 << 22) return imageDimensions(base64, prefix * 16);
    return { ...none, format: 'jpeg' };
  }
  return none;
}

function imageFactsOf(b: JsonObject, nested: boolean): ImageFacts | undefined {
  const source = b.source as JsonObject | null | undefined;
  if (source === null || typeof source !== 'object' || source.type !== 'base64' || typeof source.data !== 'string') return undefined;
  return { bytes: source.data.length, ...imageDimensions(source.data), nested };
}

/**
 * One letter per content block: `t` text with something visible, `b` blank
 * text, `k` thinking with a signature, `K` thinking without one, `r`
 * redacted thinking, `u` tool_use, `s` a server or MCP tool call
 * (`server_tool_use`, `mcp_tool_use`), `S` its result (`web_search_tool_result`
 * and the other `*_tool_result` blocks of server tools), `R` tool_result,
 * `i` image, `d` document, `o` anything else with a string `type`.
 */
export type BlockKind = 't' | 'b' | 'k' | 'K' | 'r' | 'u' | 's' | 'S' | 'R' | 'i' | 'd' | 'o';

/** Block-kind strings repeat endlessly across a file: one copy of each. */
const blockStrings = new Map<string, string>();

function internBlocks(kinds: string): string {
  if (kinds.length <= 1) return kinds;
  let shared = blockStrings.get(kinds);
  if (shared === undefined) {
    if (blockStrings.size > 4096) blockStrings.clear();
    blockStrings.set(kinds, kinds);
    shared = kinds;
  }
  return shared;
}

/**
 * Whether a text shows anything: 't' or 'b', or 'unsure' when it holds
 * non-ASCII characters and no visible ASCII one, where the answer depends
 * on the decoding (U+3000 is whitespace; its UTF-8 bytes read as Latin-1
 * are not).
 */
function textKind(text: string): 't' | 'b' | 'unsure' {
  let nonAscii = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x20 && c < 0x7f) return 't';
    if (c >= 0x7f) nonAscii = true;
  }
  return nonAscii ? 'unsure' : 'b';
}

function blockKindOf(b: JsonObject): BlockKind {
  switch (b.type) {
    case 'text':
      return 't';
    case 'thinking':
      return typeof b.signature === 'string' && b.signature !== '' ? 'k' : 'K';
    case 'redacted_thinking':
      return 'r';
    case 'tool_use':
      return 'u';
    case 'tool_result':
      return 'R';
    case 'server_tool_use':
    case 'mcp_tool_use':
      return 's';
    case 'image':
      return 'i';
    case 'document':
      return 'd';
    default:
      return typeof b.type === 'string' && b.type.endsWith('_tool_result') ? 'S' : 'o';
  }
}

/** What the official reader needs to turn a queued command into a user message. */
export interface QueuedCommand {
  /** The prompt is a string or an array of blocks. */
  readonly hasPrompt: boolean;
  readonly isMeta: boolean;
  readonly originKind: string | undefined;
  /** A forwarded intent with a lineage: never converted. */
  readonly forwarded: boolean;
  /** The uuid the converted message takes, when the attachment names one. */
  readonly sourceUuid: string | undefined;
}

/**
 * Texts Claude Code writes for an interrupted turn or tool call (the reader's
 * list). ASCII only, like every text `summarize` compares against: the
 * index's Latin-1 fast path (session-index.ts) depends on it.
 */
export const INTERRUPT_TEXTS: readonly string[] = [
  '[Request interrupted by user]',
  '[Request interrupted: the session ended before this agent finished. Nobody asked it to stop.]',
  '[This turn ended before it finished.]',
  '[Agent call interrupted: the process running this conversation stopped before this agent finished, so it returned no result. Nobody asked it to stop.]',
  '[Request interrupted by user for tool use]',
  '[Tool call did not complete: the turn was ended to deliver the message that follows. Nothing refused it; re-run it if still needed.]',
  "[Tool call interrupted: the session ended before this call's result was recorded, so its outcome is unknown. Check whether it took effect before relying on it or running it again.]",
  "[Tool call result not in this copy: this session was copied from another session before that session recorded this call's result. The call may have finished there, may still be running there, or may never have run. Check whether it took effect before relying on it or running it again.]",
  "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.",
  '[Tool call skipped: the turn was stopped before this call ran, by the check whose denial is on another call in this batch. Nothing refused this call and it had no effects; re-run it if still needed.]',
  '[Tool call skipped: the turn ended to deliver the message that follows before this call ran. Nothing refused it; re-run it if still needed.]',
];

function isInterruptText(text: unknown): boolean {
  return typeof text === 'string' && INTERRUPT_TEXTS.some((p) => text.startsWith(p));
}

function interruptOnly(content: unknown): boolean {
  if (typeof content === 'string') return isInterruptText(content);
  if (!Array.isArray(content) || content.length === 0) return false;
  return content.every((block) => {
    const b = block as JsonObject | null;
    if (b?.type === 'text') return isInterruptText(b.text);
    return b?.type === 'tool_result' && b.is_error === true && isInterruptText(b.content);
  });
}

export const COMMAND_TAGS: ReadonlyArray<readonly [string, 'record' | 'output' | 'caveat']> = [
  ['<command-name>', 'record'],
  ['<local-command-stdout>', 'output'],
  ['<local-command-stderr>', 'output'],
  ['<local-command-caveat>', 'caveat'],
];

function commandTagOf(content: unknown): 'record' | 'output' | 'caveat' | undefined {
  let text: unknown;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) text = (content as Array<JsonObject | null>).findLast((b) => b?.type === 'text')?.text;
  if (typeof text !== 'string') return undefined;
  return COMMAND_TAGS.find(([prefix]) => text.startsWith(prefix))?.[1];
}

function queuedCommandOf(obj: JsonObject): QueuedCommand | undefined {
  const a = obj.attachment as JsonObject | undefined;
  if (a === undefined || a === null || a.type !== 'queued_command') return undefined;
  const origin = a.origin as JsonObject | null | undefined;
  const intent = a.forwardedIntent as JsonObject | null | undefined;
  return {
    hasPrompt: typeof a.prompt === 'string' || Array.isArray(a.prompt),
    isMeta: Boolean(a.isMeta),
    originKind: origin !== null && typeof origin === 'object' && typeof origin.kind === 'string' ? origin.kind : undefined,
    forwarded: intent !== null && typeof intent === 'object' && typeof intent.lineage === 'string' && intent.lineage.length > 0,
    sourceUuid: typeof a.source_uuid === 'string' && a.source_uuid !== '' ? a.source_uuid : undefined,
  };
}

const EXCERPT_CHARS = 120;
const EMPTY: readonly string[] = Object.freeze([]);
const NO_IMAGES: readonly ImageFacts[] = Object.freeze([]);
/** Characters of a thinking signature kept as its key: a signature is a long random base64 string. */
const SIGNATURE_KEY_CHARS = 24;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The first characters of a text, as a string of its own. `slice` of a long
 * string makes a view that keeps the whole original alive (V8 sliced
 * strings), which for tool output and long replies means keeping the whole
 * transcript in memory; concatenating first forces a real copy.
 */
function excerptOf(text: string): string {
  return text.length > EXCERPT_CHARS ? ` ${text.slice(0, EXCERPT_CHARS)}`.slice(1) : text;
}

/**
 * What a `parentUuid` that is neither a string nor null stands for, as the
 * real CLI reads it (checked with it, 2.1.330): its walk stops at a falsy
 * link (`false`, `0`), as at `""`, and looks a truthy one (`{}`, `[]`, `5`,
 * `true`) up, finds nothing, and treats it as a parent that is not there
 * (bridging to a row at most 5 s older, else cutting history). So a falsy
 * value reads as `""` and a truthy one as a name no record has: a short
 * description of the value, which findings then show. Before, either read as a root: the cut went
 * unreported, and a bridge the CLI makes was missed.
 */
function malformedParent(value: unknown): string {
  if (!value) return '';
  // In ‹›, which no uuid holds: a record whose uuid is "5" is not the parent `5` names.
  if (Array.isArray(value)) return '‹[…]›';
  if (typeof value === 'object') return '‹{…}›';
  return `‹${String(value).slice(0, 10)}›`;
}

/**
 * Summarises a parsed line. Hand-written rather than a zod parse: it runs on
 * every line of every file and must stay a small fraction of JSON.parse.
 */
export function summarize(
  obj: JsonObject,
  line: number,
  ordinal: number,
  recovery: Recovery | undefined,
  intern: (s: string | undefined, field: InternedField) => string | undefined,
): RecordSummary {
  const type = typeof obj.type === 'string' ? typeName(obj.type) : '';
  if (recovery === undefined && LIGHT_TYPES.has(type) && isLight(obj)) {
    const ts = str(obj.timestamp);
    return new LightSummary(ordinal, line, type, ts, intern(str(obj.sessionId), SESSION_ID_FIELD));
  }
  const rawParent = obj.parentUuid;
  let parentUuid: string | null | undefined;
  let parentUuidMalformed = false;
  if (rawParent === null) parentUuid = null;
  else if (typeof rawParent === 'string') parentUuid = intern(rawParent, PARENT_UUID_FIELD);
  else if (rawParent !== undefined) {
    parentUuidMalformed = true;
    parentUuid = malformedParent(rawParent);
  }

  let content: ContentShape = 'absent';
  let bodyMalformed = false;
  let toolUseIds = EMPTY;
  let toolNames = EMPTY;
  let toolResultIds = EMPTY;
  let messageId: string | undefined;
  let excerpt = '';
  let leafUuid: string | null | undefined;
  let blocks = '';
  let blankTestedWhole = false;
  let signatureKeys = EMPTY;
  let images: readonly ImageFacts[] = NO_IMAGES;
  const kindOfText = (text: string): 't' | 'b' => {
    const kind = textKind(text);
    if (kind !== 'unsure') return kind;
    blankTestedWhole = true;
    return text.trim() === '' ? 'b' : 't';
  };

  if (type === 'user' || type === 'assistant') {
    const message = obj.message;
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      bodyMalformed = true;
    } else {
      const m = message as JsonObject;
      if (type === 'assistant') messageId = intern(str(m.id), MESSAGE_ID_FIELD);
      const c = m.content;
      if (typeof c === 'string') {
        content = 'string';
        excerpt = excerptOf(c);
        blocks = kindOfText(c);
        // A whole-text test: see judgedByWholeText.
        if (type === 'assistant' && c.trim() === '') bodyMalformed = true;
      } else if (Array.isArray(c)) {
        content = 'array';
        let validBlocks = 0;
        for (const block of c) {
          if (block === null || typeof block !== 'object') continue;
          const b = block as JsonObject;
          if (typeof b.type !== 'string') continue;
          validBlocks++;
          let kind = blockKindOf(b);
          if (kind === 't') kind = typeof b.text === 'string' ? kindOfText(b.text) : 'b';
          blocks += kind;
          // Only client tool calls are answered by a user row; server and MCP
          // tool calls are answered inside the same assistant message.
          if (b.type === 'tool_use') {
            if (typeof b.id === 'string') toolUseIds = toolUseIds === EMPTY ? [b.id] : [...toolUseIds, b.id];
            if (typeof b.name === 'string') toolNames = toolNames === EMPTY ? [b.name] : [...toolNames, b.name];
          } else if (b.type === 'tool_result') {
            if (typeof b.tool_use_id === 'string') {
              toolResultIds = toolResultIds === EMPTY ? [b.tool_use_id] : [...toolResultIds, b.tool_use_id];
            }
            if (Array.isArray(b.content)) {
              for (const inner of b.content as unknown[]) {
                if (inner === null || typeof inner !== 'object' || (inner as JsonObject).type !== 'image') continue;
                const facts = imageFactsOf(inner as JsonObject, true);
                if (facts !== undefined) images = [...images, facts];
              }
            }
          } else if (kind === 'k') {
            // A copy: a slice of the signature (hundreds of characters) would keep it all alive.
            const key = Buffer.from((b.signature as string).slice(-SIGNATURE_KEY_CHARS), 'utf8').toString('utf8');
            signatureKeys = signatureKeys === EMPTY ? [key] : [...signatureKeys, key];
          } else if (kind === 'i') {
            const facts = imageFactsOf(b, false);
            if (facts !== undefined) images = [...images, facts];
          } else if (b.type === 'text' && excerpt === '' && typeof b.text === 'string') {
            excerpt = excerptOf(b.text);
          }
        }
        if (validBlocks === 0 && c.length > 0) bodyMalformed = true;
      } else {
        content = c === undefined ? 'absent' : 'other';
        bodyMalformed = true;
      }
    }
  } else if (type === 'system') {
    excerpt = typeof obj.content === 'string' ? excerptOf(obj.content) : '';
  } else if (type === 'last-prompt') {
    const l = obj.leafUuid;
    leafUuid = l === null || typeof l === 'string' ? l : undefined;
    excerpt = typeof obj.lastPrompt === 'string' ? excerptOf(obj.lastPrompt) : '';
  } else if (type === 'summary') {
    excerpt = typeof obj.summary === 'string' ? excerptOf(obj.summary) : '';
    leafUuid = str(obj.leafUuid);
  } else if (type === 'custom-title') {
    excerpt = typeof obj.customTitle === 'string' ? excerptOf(obj.customTitle) : '';
  } else if (type === 'ai-title') {
    excerpt = typeof obj.aiTitle === 'string' ? excerptOf(obj.aiTitle) : '';
  }

  let attachmentType: string | undefined;
  let queued: QueuedCommand | undefined;
  if (type === 'attachment' && obj.attachment !== null && typeof obj.attachment === 'object') {
    attachmentType = str((obj.attachment as JsonObject).type);
    if (attachmentType === 'queued_command') {
      queued = queuedCommandOf(obj);
      const prompt = (obj.attachment as JsonObject).prompt;
      if (typeof prompt === 'string') excerpt = excerptOf(prompt);
    }
  }
  let commandTag: 'record' | 'output' | 'caveat' | undefined;
  let interrupt = false;
  if (type === 'user') {
    const c = (obj.message as JsonObject | null | undefined)?.content;
    if (obj.promptSource === undefined) commandTag = commandTagOf(c);
    interrupt = interruptOnly(c);
  }
  let preserved: PreservedInfo | undefined;
  if (type === 'system' && obj.compactMetadata !== null && typeof obj.compactMetadata === 'object') {
    preserved = preservedInfo(obj.compactMetadata as JsonObject);
  }
  const origin = obj.origin;
  const originKind =
    origin !== null && typeof origin === 'object' ? str((origin as JsonObject).kind) : undefined;
  let quietReply = false;
  if (type === 'assistant' && obj.closesQuietTurn === true) {
    const c = (obj.message as JsonObject | undefined)?.content;
    if (Array.isArray(c) && c.length === 1) {
      const only = c[0] as JsonObject | null;
      quietReply = only?.type === 'text' && (only.text === '' || only.text === 'No response requested.');
    }
  }

  if (toolUseIds !== EMPTY) rememberCalls(toolUseIds);
  if (toolResultIds !== EMPTY) toolResultIds = sharedWithCall(toolResultIds);

  const ts = str(obj.timestamp);
  const subtype = str(obj.subtype);
  const logicalParentUuid = str(obj.logicalParentUuid);
  let flags = 0;
  if (obj.isSidechain === true) flags |= SIDECHAIN;
  if (obj.isMeta === true) flags |= META;
  if (obj.isCompactSummary === true) flags |= COMPACT_SUMMARY;
  if (parentUuidMalformed) flags |= PARENT_MALFORMED;
  if (bodyMalformed) flags |= BODY_MALFORMED;
  if (obj.explicit === true) flags |= EXPLICIT;
  if (obj.teamName !== undefined && obj.teamName !== null && obj.teamName !== '' && obj.teamName !== false) flags |= TEAM_NAME;
  if (quietReply) flags |= QUIET_REPLY;
  if (interrupt) flags |= INTERRUPT;
  if (blankTestedWhole) flags |= BLANK_TESTED_WHOLE;
  if (type === 'assistant' && obj.isApiErrorMessage === true && isSyntheticModel(obj.message)) flags |= API_ERROR;
  const rare: RareFields =
    subtype === undefined &&
    logicalParentUuid === undefined &&
    leafUuid === undefined &&
    recovery === undefined &&
    attachmentType === undefined &&
    originKind === undefined &&
    preserved === undefined &&
    queued === undefined &&
    commandTag === undefined &&
    images === NO_IMAGES
      ? COMMON
      : { subtype, logicalParentUuid, leafUuid, recovery, attachmentType, originKind, preserved, queued, commandTag, images };
  return new Summary(
    ordinal,
    line,
    type,
    str(obj.uuid),
    parentUuid,
    ts,
    ts === undefined ? Number.NaN : Date.parse(ts),
    envelopeOf(intern(str(obj.sessionId), SESSION_ID_FIELD), str(obj.cwd), str(obj.slug), str(obj.agentId)),
    messageId,
    content,
    excerpt,
    internBlocks(blocks),
    toolUseIds,
    toolNames.length === 1 ? internToolName(toolNames) : toolNames,
    toolResultIds,
    intern(str(obj.sourceToolAssistantUUID), PARENT_UUID_FIELD),
    signatureKeys,
    flags,
    rare,
  );
}

/** Bits of {@link Summary}'s flags: the boolean fields. */
const SIDECHAIN = 1;
const META = 2;
const COMPACT_SUMMARY = 4;
const PARENT_MALFORMED = 8;
const BODY_MALFORMED = 16;
const EXPLICIT = 32;
const TEAM_NAME = 64;
const QUIET_REPLY = 128;
const INTERRUPT = 256;
const BLANK_TESTED_WHOLE = 512;
const API_ERROR = 1024;

/** `message.model` is the `<synthetic>` of a row Claude Code wrote rather than the model. */
function isSyntheticModel(message: unknown): boolean {
  return message !== null && typeof message === 'object' && (message as JsonObject).model === '<synthetic>';
}

/** The fields most records leave at their default, kept apart so those records share one object for them. */
interface RareFields {
  readonly subtype: string | undefined;
  readonly logicalParentUuid: string | undefined;
  readonly leafUuid: string | null | undefined;
  readonly recovery: Recovery | undefined;
  readonly attachmentType: string | undefined;
  readonly originKind: string | undefined;
  readonly preserved: PreservedInfo | undefined;
  readonly queued: QueuedCommand | undefined;
  readonly commandTag: 'record' | 'output' | 'caveat' | undefined;
  readonly images: readonly ImageFacts[];
}

const COMMON: RareFields = Object.freeze({
  subtype: undefined,
  logicalParentUuid: undefined,
  leafUuid: undefined,
  recovery: undefined,
  attachmentType: undefined,
  originKind: undefined,
  preserved: undefined,
  queued: undefined,
  commandTag: undefined,
  images: NO_IMAGES,
});

/**
 * The tool-use id lists of the last rows that made calls. A tool result
 * nearly always follows its call within a few rows, and its row's list of
 * answered ids is then the calling row's list, string for string: it shares
 * that array (immutable, like every list of a summary) instead of keeping a
 * copy. On a session that mostly calls tools that was about 100 bytes on
 * every other record.
 */
const recentCalls: Array<readonly string[]> = [];
const RECENT_CALLS = 16;
let nextRecentCall = 0;

function rememberCalls(ids: readonly string[]): void {
  recentCalls[nextRecentCall] = ids;
  nextRecentCall = (nextRecentCall + 1) % RECENT_CALLS;
}

function sharedWithCall(ids: readonly string[]): readonly string[] {
  for (const calls of recentCalls) {
    if (calls.length !== ids.length) continue;
    let same = true;
    for (let i = 0; i < ids.length && same; i++) same = calls[i] === ids[i];
    if (same) return calls;
  }
  return ids;
}

/** The envelope fields a record shares with the records around it. */
interface Envelope {
  readonly sessionId: string | undefined;
  readonly cwd: string | undefined;
  readonly slug: string | undefined;
  readonly agentId: string | undefined;
}

const ENVELOPE_FIELDS = ['sessionId', 'cwd', 'slug', 'agentId'] as const satisfies ReadonlyArray<keyof Envelope>;

/**
 * One object per combination of envelope fields: every record of a session
 * repeats the same session id, cwd, slug and agent id, and four slots of
 * their own (and a parsed copy of each string) cost a 500,000-record session
 * 12 MB. The combination just used is compared first; the strings kept are
 * those of the first record that had the combination.
 */
const envelopes = new Map<string, Envelope>();
let lastEnvelope: Envelope = Object.freeze({ sessionId: undefined, cwd: undefined, slug: undefined, agentId: undefined });

function envelopeOf(sessionId: string | undefined, cwd: string | undefined, slug: string | undefined, agentId: string | undefined): Envelope {
  const last = lastEnvelope;
  if (last.sessionId === sessionId && last.cwd === cwd && last.slug === slug && last.agentId === agentId) return last;
  const key = JSON.stringify([sessionId ?? null, cwd ?? null, slug ?? null, agentId ?? null]);
  let shared = envelopes.get(key);
  if (shared === undefined) {
    if (envelopes.size >= 4096) envelopes.clear(); // a file of made-up values does not grow the table without end
    shared = Object.freeze({ sessionId, cwd, slug, agentId });
    envelopes.set(key, shared);
  }
  lastEnvelope = shared;
  return shared;
}

/** One array per tool name for single-call rows (most tool calls), shared by every record that names it. */
const toolNameArrays = new Map<string, readonly string[]>();

function internToolName(names: readonly string[]): readonly string[] {
  const name = names[0] as string;
  let shared = toolNameArrays.get(name);
  if (shared === undefined) {
    if (toolNameArrays.size >= 4096) return names; // a file of made-up names does not grow the table without end
    shared = Object.freeze([name]);
    toolNameArrays.set(name, shared);
  }
  return shared;
}

/**
 * A {@link RecordSummary} as the index keeps it. A 1 GB session has
 * 300,000 records, so their size is most of an index's: the ten boolean
 * fields are bits of one number and the ten fields most records leave
 * unset sit in one object that those records share, read through getters.
 * An object of 40 fields cost about 340 bytes a record; this one about 200.
 */
class Summary implements RecordSummary {
  constructor(
    readonly ordinal: number,
    readonly line: number,
    readonly type: string,
    readonly uuid: string | undefined,
    readonly parentUuid: string | null | undefined,
    readonly timestamp: string | undefined,
    readonly time: number,
    readonly envelope: Envelope,
    readonly messageId: string | undefined,
    readonly content: ContentShape,
    readonly excerpt: string,
    readonly blocks: string,
    readonly toolUseIds: readonly string[],
    readonly toolNames: readonly string[],
    readonly toolResultIds: readonly string[],
    readonly sourceToolAssistantUuid: string | undefined,
    readonly signatureKeys: readonly string[],
    readonly flags: number,
    readonly rare: RareFields,
  ) {}
}

/** The boolean fields of a record summary, by the bit of {@link Summary}'s flags each reads. */
const FLAG_FIELDS = {
  isSidechain: SIDECHAIN,
  isMeta: META,
  isCompactSummary: COMPACT_SUMMARY,
  parentUuidMalformed: PARENT_MALFORMED,
  bodyMalformed: BODY_MALFORMED,
  explicit: EXPLICIT,
  teamName: TEAM_NAME,
  quietReply: QUIET_REPLY,
  interrupt: INTERRUPT,
  blankTestedWhole: BLANK_TESTED_WHOLE,
  apiError: API_ERROR,
} as const satisfies Partial<Record<keyof RecordSummary, number>>;

// Read through getters on the prototype, defined once from the tables:
// twenty hand-written getters said the same thing twenty times.
interface Summary extends Pick<RecordSummary, keyof typeof FLAG_FIELDS>, RareFields, Envelope {}
for (const [field, bit] of Object.entries(FLAG_FIELDS)) {
  Object.defineProperty(Summary.prototype, field, {
    get(this: Summary): boolean {
      return (this.flags & bit) !== 0;
    },
  });
}
for (const field of ENVELOPE_FIELDS) {
  Object.defineProperty(Summary.prototype, field, {
    get(this: Summary): string | undefined {
      return this.envelope[field];
    },
  });
}
for (const field of Object.keys(COMMON) as Array<keyof RareFields>) {
  Object.defineProperty(Summary.prototype, field, {
    get(this: Summary): unknown {
      return this.rare[field];
    },
  });
}

/**
 * One string per record type, shared by every record of that type. JSON.parse
 * shares short values (`user`, `assistant`) by itself, but a longer type
 * (`queue-operation`, `file-history-snapshot`) is a new string on every line,
 * and a summary keeps it for the whole run.
 */
const typeNames = new Map<string, string>();

function typeName(type: string): string {
  let shared = typeNames.get(type);
  if (shared === undefined) {
    if (typeNames.size >= 1024) return type; // a file of made-up types does not grow the table without end
    typeNames.set(type, type);
    shared = type;
  }
  return shared;
}

/**
 * Rows no rule and no model reads beyond their type, time and session:
 * queue operations, file history snapshots and the other bookkeeping rows.
 * Some real sessions are mostly these (a few hundred bytes a line), and a
 * full summary of each cost more memory than their bytes.
 */
const LIGHT_TYPES: ReadonlySet<string> = new Set(['queue-operation', 'file-history-snapshot', ...INERT_RECORD_TYPES]);

/** The record sets none of the fields a full summary would keep beyond type, time and session. */
function isLight(obj: JsonObject): boolean {
  return (
    obj.uuid === undefined &&
    obj.parentUuid === undefined &&
    obj.subtype === undefined &&
    obj.logicalParentUuid === undefined &&
    obj.isSidechain !== true &&
    obj.isMeta !== true &&
    obj.isCompactSummary !== true &&
    obj.explicit !== true &&
    (obj.teamName === undefined || obj.teamName === null || obj.teamName === '' || obj.teamName === false) &&
    obj.cwd === undefined &&
    obj.slug === undefined &&
    obj.agentId === undefined &&
    obj.sourceToolAssistantUUID === undefined &&
    obj.origin === undefined
  );
}

/** Every field of {@link RecordSummary}, in the interface's order. */
export const SUMMARY_FIELDS = [
  'ordinal', 'line', 'type', 'subtype', 'uuid', 'parentUuid', 'parentUuidMalformed', 'logicalParentUuid', 'isSidechain', 'timestamp', 'time',
  'sessionId', 'cwd', 'slug', 'agentId', 'isMeta', 'isCompactSummary', 'messageId', 'content', 'bodyMalformed', 'toolUseIds', 'toolNames',
  'toolResultIds', 'sourceToolAssistantUuid', 'excerpt', 'leafUuid', 'explicit', 'recovery', 'teamName', 'attachmentType', 'originKind',
  'quietReply', 'preserved', 'queued', 'commandTag', 'interrupt', 'apiError', 'blocks', 'blankTestedWhole', 'signatureKeys', 'images',
] as const satisfies ReadonlyArray<keyof RecordSummary>;

/** Compiles only while SUMMARY_FIELDS names every field of RecordSummary. */
const ALL_FIELDS_LISTED: [Exclude<keyof RecordSummary, (typeof SUMMARY_FIELDS)[number]>] extends [never] ? true : never = true;
void ALL_FIELDS_LISTED;

/**
 * The summary of a light row (see {@link LIGHT_TYPES}): five fields of its
 * own and its time parsed when asked; every other field is read from the
 * prototype, where it holds what a full summary of a row that sets nothing
 * else holds.
 */
class LightSummary {
  constructor(
    readonly ordinal: number,
    readonly line: number,
    readonly type: string,
    readonly timestamp: string | undefined,
    readonly sessionId: string | undefined,
  ) {}

  /**
   * Parsed when asked, not kept: a time is a boxed number of 16 bytes and a
   * slot of 8, which on a file of millions of bookkeeping rows was 70 MB,
   * and nearly nothing asks for the time of such a row.
   */
  get time(): number {
    return this.timestamp === undefined ? Number.NaN : Date.parse(this.timestamp);
  }
}
interface LightSummary extends RecordSummary {
  readonly flags: number;
  readonly rare: RareFields;
}

{
  const unset = new Summary(0, 0, '', undefined, undefined, undefined, Number.NaN, envelopeOf(undefined, undefined, undefined, undefined), undefined, 'absent', '', '', EMPTY, EMPTY, EMPTY, undefined, EMPTY, 0, COMMON);
  const own = new Set<string>(['ordinal', 'line', 'type', 'timestamp', 'time', 'sessionId']); // time: a getter of its own
  for (const field of [...SUMMARY_FIELDS, 'flags', 'rare'] as const) {
    if (!own.has(field)) Object.defineProperty(LightSummary.prototype, field, { value: unset[field] });
  }
}

/**
 * A copy of a summary with some fields changed (the SDK reader's view of a
 * queued command as the prompt it became). A summary's fields are not all
 * its own properties, so an object spread would lose some.
 */
export function withFields(
  r: RecordSummary,
  changes: Pick<RecordSummary, 'type' | 'uuid' | 'isMeta' | 'originKind'>,
): RecordSummary {
  const base = r as Summary | LightSummary;
  const flags = changes.isMeta ? base.flags | META : base.flags & ~META;
  const rare = { ...base.rare, originKind: changes.originKind };
  return new Summary(
    r.ordinal,
    r.line,
    changes.type,
    changes.uuid,
    r.parentUuid,
    r.timestamp,
    r.time,
    envelopeOf(r.sessionId, r.cwd, r.slug, r.agentId),
    r.messageId,
    r.content,
    r.excerpt,
    r.blocks,
    r.toolUseIds,
    r.toolNames,
    r.toolResultIds,
    r.sourceToolAssistantUuid,
    r.signatureKeys,
    flags,
    rare,
  );
}

function preservedInfo(meta: JsonObject): PreservedInfo | undefined {
  const messages = meta.preservedMessages;
  if (messages !== null && typeof messages === 'object') {
    const m = messages as JsonObject;
    const uuids = Array.isArray(m.uuids) && m.uuids.every((u) => typeof u === 'string') ? (m.uuids as string[]) : undefined;
    return { kind: 'messages', anchorUuid: str(m.anchorUuid), uuids };
  }
  const segment = meta.preservedSegment;
  if (segment !== null && typeof segment === 'object') {
    const s = segment as JsonObject;
    return { kind: 'segment', anchorUuid: str(s.anchorUuid), headUuid: str(s.headUuid), tailUuid: str(s.tailUuid) };
  }
  return undefined;
}

/**
 * `summarize` judged this record by a whole text rather than by a prefix or
 * by equality with an ASCII constant: the blank test of an assistant row's
 * string content. Callers that parse a line from another decoding than
 * UTF-8 (session-index.ts) must not trust such a summary on a non-ASCII line;
 * keep this in step with every whole-text test above.
 */
export function judgedByWholeText(r: Pick<RecordSummary, 'type' | 'content' | 'blankTestedWhole'>): boolean {
  return (r.type === 'assistant' && r.content === 'string') || r.blankTestedWhole;
}

/** A compact boundary starts a new segment: its null parent is deliberate. */
export function isCompactBoundary(r: Pick<RecordSummary, 'type' | 'subtype' | 'logicalParentUuid'>): boolean {
  return (
    r.type === 'system' &&
    (r.subtype === 'compact_boundary' || r.subtype === 'microcompact_boundary' || r.logicalParentUuid !== undefined)
  );
}

/** Rows Claude Code's leaf bookkeeping ignores (format.md §4.2 step 6). */
export function isFileSnapshotRow(r: Pick<RecordSummary, 'type' | 'subtype'>): boolean {
  return r.type === 'system' && r.subtype === 'file_snapshot';
}

/** Text Claude Code writes when the user pressed Esc during a turn. */
export const INTERRUPT_MARKER = '[Request interrupted by user';

/** A user row that is only tool results (not something the person typed). */
export function isToolResultOnly(r: RecordSummary): boolean {
  return r.type === 'user' && r.toolResultIds.length > 0 && r.excerpt === '';
}

/**
 * Compact JSON in the writer's key order. `JSON.stringify` keeps insertion
 * order, so an object parsed from a line and edited in place serialises with
 * its original key order.
 */
export function serializeRecord(obj: JsonObject): string {
  return JSON.stringify(obj);
}

/**
 * Writes summaries as JSON values, for a cache that keeps a session's index
 * between runs ({@link summaryDecoder} makes them again), in file order.
 * `share` numbers the objects summaries share (their envelope and rare
 * fields), which the caller keeps once, in a form that holds `undefined`
 * (a JSON object drops them). A string field that is unset is written as 0,
 * which no string field holds.
 *
 * Strings the index shares between records are written as references, so
 * that the summaries read back share them too: a parent uuid as the record
 * it names (`parents`, by ordinal, when that record comes first), a
 * message id as the one before it, a row's answered tool ids as the list of
 * the row that made the calls. Besides the memory, the resume models look
 * these up in maps, and a string the map already holds is found without
 * hashing it or comparing its characters: read back as copies, a 1 GB
 * session of tool rows took a second longer to check.
 */
export function summaryEncoder(
  records: readonly RecordSummary[],
  parents: Int32Array,
  share: (value: object) => number,
): (r: RecordSummary) => unknown[] {
  const list = (l: readonly string[]): readonly string[] | 0 => (l.length === 0 ? 0 : l);
  let lastMessageId: string | undefined;
  // The lists of tool ids of the latest rows that made calls, with their ordinals.
  const calls = new Map<readonly string[], number>();
  return (r) => {
    if (r instanceof LightSummary) return [r.line, r.type, r.timestamp ?? 0, r.sessionId ?? 0];
    if (!(r instanceof Summary)) throw new TypeError('not a summary made by summarize');
    const parent = parents[r.ordinal] ?? -1;
    const parentRef =
      r.parentUuid === undefined ? 0 : parent >= 0 && parent < r.ordinal && records[parent]?.uuid === r.parentUuid ? parent + 1 : r.parentUuid;
    const messageRef = r.messageId === undefined ? 0 : r.messageId === lastMessageId ? 1 : r.messageId;
    if (r.messageId !== undefined) lastMessageId = r.messageId;
    const caller = calls.get(r.toolResultIds);
    const answered = r.toolResultIds.length === 0 ? 0 : caller !== undefined ? caller + 1 : r.toolResultIds;
    if (r.toolUseIds.length > 0) {
      calls.set(r.toolUseIds, r.ordinal);
      if (calls.size > 64) calls.delete(calls.keys().next().value as readonly string[]);
    }
    return [
      r.line,
      r.type,
      r.uuid ?? 0,
      parentRef,
      r.timestamp ?? 0,
      Number.isNaN(r.time) ? null : r.time,
      share(r.envelope),
      messageRef,
      r.content,
      r.excerpt,
      r.blocks,
      list(r.toolUseIds),
      list(r.toolNames),
      answered,
      r.sourceToolAssistantUuid === undefined ? 0 : r.sourceToolAssistantUuid === r.parentUuid ? 1 : r.sourceToolAssistantUuid,
      list(r.signatureKeys),
      r.flags,
      share(r.rare),
    ];
  };
}

/**
 * Reads back, in file order, the summaries {@link summaryEncoder} wrote:
 * each as record `records.length` of `records`, which holds those read
 * before it (and which the caller then adds it to); `shared` holds what
 * `share` numbered. With `after`, the summaries were written by an index of
 * the part of a file after the first `after.lines` lines, which hold the
 * first `after.records` records of `records`: their lines and the records
 * they name are numbered on from there.
 */
export function summaryDecoder(
  shared: readonly object[],
  records: readonly RecordSummary[],
  after: { readonly lines: number; readonly records: number } = { lines: 0, records: 0 },
): (row: readonly unknown[]) => RecordSummary {
  const text = (v: unknown): string | undefined => (v === 0 ? undefined : (v as string));
  const list = (v: unknown): readonly string[] => (v === 0 ? EMPTY : (v as readonly string[]));
  let lastMessageId: string | undefined;
  const sessionIds = new Map<string, string>();
  /** What a row names among the records before it: thrown when it names none (a stored index that is not what was written). */
  const earlier = (n: number): RecordSummary => {
    const r = records[after.records + n - 1];
    if (r === undefined || n <= 0) throw new TypeError('a row names a record that is not before it');
    return r;
  };
  const sharedAt = (n: unknown): object => {
    const value = typeof n === 'number' ? shared[n] : undefined;
    if (value === null || typeof value !== 'object') throw new TypeError('a row names a shared value that is not there');
    return value;
  };
  return (row) => {
    const ordinal = records.length;
    if (!Array.isArray(row) || (row.length !== 4 && row.length !== 18) || typeof row[0] !== 'number' || typeof row[1] !== 'string') {
      throw new TypeError('not a summary row');
    }
    const type = typeName(row[1]);
    if (row.length === 4) {
      let sessionId = text(row[3]);
      if (sessionId !== undefined && sessionIds.size < 1024) sessionId = sessionIds.get(sessionId) ?? (sessionIds.set(sessionId, sessionId), sessionId);
      return new LightSummary(ordinal, row[0] + after.lines, type, text(row[2]), sessionId);
    }
    const parentRef = row[3];
    const parentUuid = parentRef === 0 ? undefined : typeof parentRef === 'number' ? (earlier(parentRef).uuid as string) : (parentRef as string | null);
    const messageRef = row[7];
    const messageId = messageRef === 0 ? undefined : messageRef === 1 ? lastMessageId : (messageRef as string);
    if (messageId !== undefined) lastMessageId = messageId;
    const answered = row[13];
    const names = list(row[12]);
    const source = row[14];
    return new Summary(
      ordinal,
      row[0] + after.lines,
      type,
      text(row[2]),
      parentUuid,
      text(row[4]),
      row[5] === null ? Number.NaN : (row[5] as number),
      sharedAt(row[6]) as Envelope,
      messageId,
      row[8] as ContentShape,
      row[9] as string,
      internBlocks(row[10] as string),
      list(row[11]),
      names.length === 1 ? internToolName(names) : names,
      typeof answered === 'number' && answered > 0 ? earlier(answered).toolUseIds : list(answered),
      source === 1 ? (parentUuid as string) : text(source),
      list(row[15]),
      row[16] as number,
      sharedAt(row[17]) as RareFields,
    );
  };
}
