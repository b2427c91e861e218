/**
 * The conversation a person reads: the messages `claude --resume` loads, or
 * for a subagent's transcript (never resumed) its own thread. Shared by
 * `show`, `tree`, `export` and the report.
 */
import { jsonTextOfAnyDepth } from '../json-text.js';
import type { RecordSummary } from '../records.js';
import type { SessionIndex } from '../session-index.js';
import { shellWord } from '../../shell-word.js';

/**
 * A subagent's transcript (its messages are all sidechain rows, as in
 * `<session>/subagents/agent-*.jsonl`) is never resumed, so the resume model
 * loads nothing from it. `show` and `tree` present its own thread instead:
 * the chain back from its last message. Undefined for any other file.
 */
export function subagentChain(index: SessionIndex): RecordSummary[] | undefined {
  let last: RecordSummary | undefined;
  for (const r of index.effectiveRecords()) {
    if (r.type !== 'user' && r.type !== 'assistant') continue;
    if (!r.isSidechain) return undefined;
    last = r;
  }
  if (last === undefined) return undefined;
  const chain: RecordSummary[] = [];
  const seen = new Set<RecordSummary>();
  for (let r: RecordSummary | undefined = last; r !== undefined && !seen.has(r); ) {
    seen.add(r);
    chain.push(r);
    r = index.parentOf(r);
  }
  return chain.reverse();
}

/** The messages of a subagent's thread, as `show` lists them. */
export function threadMessages(chain: readonly RecordSummary[]): RecordSummary[] {
  return chain.filter((r) => (r.type === 'user' || r.type === 'assistant') && !r.isMeta);
}


type Json = unknown;

function asObject(value: Json): Record<string, Json> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, Json>) : undefined;
}

/** One content block of a message, as a reader of the conversation sees it. */
export type MessagePart =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'thinking'; readonly text: string }
  | { readonly kind: 'tool-use'; readonly id: string; readonly name: string; readonly input: string }
  | { readonly kind: 'tool-result'; readonly id: string; readonly text: string; readonly isError: boolean }
  | { readonly kind: 'other'; readonly type: string };

function resultText(content: Json): string {
  if (typeof content === 'string') return content;
  // Any depth: a result's content can be nested too deep for JSON.stringify.
  if (!Array.isArray(content)) return content === undefined ? '' : jsonTextOfAnyDepth(content);
  return content
    .map((b) => {
      const o = asObject(b);
      if (o?.type === 'text' && typeof o.text === 'string') return o.text;
      return o !== undefined && typeof o.type === 'string' ? `[${o.type}]` : '';
    })
    .filter((t) => t !== '')
    .join('\n');
}

/** The content blocks of a user or assistant record (the parsed line), in order. */
export function messageParts(record: Record<string, Json> | undefined): MessagePart[] {
  const message = asObject(record?.message);
  const content = message?.content;
  if (typeof content === 'string') return [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const parts: MessagePart[] = [];
  for (const block of content) {
    const b = asObject(block);
    if (b === undefined) continue;
    switch (b.type) {
      case 'text':
        if (typeof b.text === 'string') parts.push({ kind: 'text', text: b.text });
        break;
      case 'thinking':
        if (typeof b.thinking === 'string') parts.push({ kind: 'thinking', text: b.thinking });
        break;
      case 'tool_use':
        parts.push({
          kind: 'tool-use',
          id: typeof b.id === 'string' ? b.id : '',
          name: typeof b.name === 'string' ? b.name : 'tool',
          // Indented as JSON.stringify indents it; an input nested too deep for it
          // (a transcript is untrusted) comes compact, the same JSON on one line.
          input: jsonTextOfAnyDepth(b.input ?? {}, 2),
        });
        break;
      case 'tool_result':
        parts.push({
          kind: 'tool-result',
          id: typeof b.tool_use_id === 'string' ? b.tool_use_id : '',
          text: resultText(b.content),
          isError: b.is_error === true,
        });
        break;
      default:
        parts.push({ kind: 'other', type: typeof b.type === 'string' ? b.type : 'unknown' });
    }
  }
  return parts;
}

/**
 * What a person or Claude said in a record: its text blocks, joined by blank
 * lines (the text parts of {@link messageParts}, without building the
 * others: search asks this of every record that may hold its text, tool
 * calls and results included).
 */
export function spokenText(record: Record<string, Json> | undefined): string {
  const content = asObject(record?.message)?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text: string | undefined;
  for (const block of content) {
    const b = asObject(block);
    if (b?.type !== 'text' || typeof b.text !== 'string') continue;
    text = text === undefined ? b.text : `${text}\n\n${b.text}`;
  }
  return text ?? '';
}

/**
 * The launch folder of a session: the first `cwd` on a main-thread record,
 * the folder `claude --resume` must be started from to find the session.
 */
export function launchCwd(index: SessionIndex): string | undefined {
  for (const r of index.records) if (!r.isSidechain && r.cwd !== undefined && r.cwd !== '') return r.cwd;
  return index.records.find((r) => r.cwd !== undefined && r.cwd !== '')?.cwd;
}

/** The command that brings a session back: `cd <cwd> && claude --resume <sessionId>`. */
export function resumeCommand(cwd: string | undefined, sessionId: string): string {
  const resume = `claude --resume ${shellWord(sessionId)}`;
  return cwd === undefined ? resume : `cd ${shellWord(cwd)} && ${resume}`;
}

/** One message of an exported conversation. */
export interface ConversationMessage {
  readonly uuid: string | undefined;
  readonly type: string;
  readonly time: number;
  readonly parts: readonly MessagePart[];
}

/** The conversation `export` writes: the messages `show` lists, with their content. */
export interface Conversation {
  readonly displayPath: string;
  readonly sessionId: string;
  readonly title: string;
  readonly cwd: string | undefined;
  readonly command: string;
  /** The file is a subagent's transcript: its own thread, which resume does not load. */
  readonly subagent: boolean;
  readonly loaded: number;
  readonly total: number;
  /** How many {@link messages} gives. */
  readonly messageCount: number;
  /**
   * The messages, each read from the file and parsed as it is taken: the
   * content of a 700 MB session is hundreds of MB of text, and holding all
   * of it (and the page made of it) at once took gigabytes.
   */
  readonly messages: Iterable<ConversationMessage>;
}

/** The messages `show` lists (resume's, or a subagent's thread), with their parsed content. */
export function conversationOf(index: SessionIndex, resume: { readonly messages: readonly RecordSummary[]; readonly loaded: number; readonly total: number }, title: string): Conversation {
  const chain = subagentChain(index);
  const list = chain === undefined ? resume.messages : threadMessages(chain);
  const sessionId = index.file.layoutSessionId ?? index.records.find((r) => r.sessionId !== undefined)?.sessionId ?? '';
  const cwd = launchCwd(index);
  return {
    displayPath: index.file.displayPath,
    sessionId,
    title,
    cwd,
    command: resumeCommand(cwd, sessionId),
    subagent: chain !== undefined,
    loaded: resume.loaded,
    total: resume.total,
    messageCount: list.length,
    messages: {
      *[Symbol.iterator]() {
        for (const r of list) {
          yield { uuid: r.uuid, type: r.type, time: r.time, parts: messageParts(index.recordObject(r) as Record<string, unknown> | undefined) };
        }
      },
    },
  };
}
