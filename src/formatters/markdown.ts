/**
 * Renders a conversation (src/core/views/conversation.ts) as Markdown: a
 * heading per message, its text as written, tool calls and results in
 * collapsible `<details>` blocks holding fenced code, thinking only when
 * asked. Text a transcript holds is Markdown already and is kept; what goes
 * into HTML tags (summaries) is HTML-escaped, and fences are made longer
 * than any backtick run inside them.
 */
import type { Conversation, MessagePart } from '../core/views/conversation.js';
import { escapeHtml } from './html-escape.js';

function fence(text: string, lang = ''): string {
  // A loop, not Math.max(...runs): a long tool output can hold more backtick
  // runs than a call can take arguments.
  let longest = 2;
  for (const run of text.matchAll(/`+/g)) if (run[0].length > longest) longest = run[0].length;
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${text.replace(/\n$/, '')}\n${f}`;
}

/**
 * `text` as an inline code span (CommonMark): fenced by one backtick more
 * than its longest run, and padded with a space when it starts or ends with
 * one, so a folder or command holding backticks stays one span.
 */
function codeSpan(text: string): string {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) if (run[0].length > longest) longest = run[0].length;
  const fence = '`'.repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(text) && text.trim() !== '' ? ' ' : '';
  return `${fence}${pad}${text.replace(/[\r\n]+/g, ' ')}${pad}${fence}`;
}

function isoMinute(time: number): string {
  return Number.isNaN(time) ? 'no time' : `${new Date(time).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

function partMarkdown(p: MessagePart, thinking: boolean): string | undefined {
  switch (p.kind) {
    case 'text':
      return p.text.trim() === '' ? undefined : p.text.trim();
    case 'thinking':
      return thinking ? `<details><summary>Thinking</summary>\n\n${fence(p.text)}\n\n</details>` : undefined;
    case 'tool-use':
      return `<details><summary>Tool call: ${escapeHtml(p.name)}</summary>\n\n${fence(p.input, 'json')}\n\n</details>`;
    case 'tool-result':
      return `<details><summary>Tool result${p.isError ? ' (error)' : ''}</summary>\n\n${fence(p.text)}\n\n</details>`;
    case 'other':
      return `*[${escapeHtml(p.type)}]*`;
  }
}

export function conversationMarkdown(c: Conversation, options: { readonly thinking: boolean }): string {
  return [...conversationMarkdownPieces(c, options)].join('');
}

/**
 * {@link conversationMarkdown} in pieces: the header, then one message at a
 * time (each piece whole Markdown, so a message is never cut in two).
 */
export function* conversationMarkdownPieces(c: Conversation, options: { readonly thinking: boolean }): Generator<string> {
  yield [
    `# ${c.title.replace(/\s+/g, ' ')}`,
    '',
    `- Session: ${codeSpan(c.sessionId)}`,
    ...(c.cwd === undefined ? [] : [`- Folder: ${codeSpan(c.cwd)}`]),
    `- Resume: ${codeSpan(c.command)}`,
    c.subagent
      ? `- A subagent's transcript (resume does not load it): its thread of ${c.messageCount} message(s)`
      : `- Messages: ${c.messageCount} (the conversation \`claude --resume\` loads; ${c.loaded} of ${c.total})`,
    '',
  ].join('\n');
  let i = 0;
  for (const m of c.messages) {
    const who = m.type === 'user' ? (m.parts.every((p) => p.kind === 'tool-result') && m.parts.length > 0 ? 'Tool result' : 'User') : m.type === 'assistant' ? 'Claude' : m.type;
    const body = m.parts.flatMap((p) => partMarkdown(p, options.thinking) ?? []);
    yield `\n## ${++i}. ${who} · ${isoMinute(m.time)}\n\n${body.length === 0 ? '*(no text)*' : body.join('\n\n')}\n`;
  }
}
