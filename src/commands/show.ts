/**
 * `cclint show <session>`: the linear conversation `claude --resume` would
 * load (the resume model's `messages`), one line a message. `--intended`
 * shows the conversation with every break bridged instead and marks what
 * resume would lose. A subagent's transcript, which resume never loads, is
 * shown as its own thread: the chain back from its last message, the rows
 * `tree` marks `*`. Read-only.
 */
import { Command, Option } from 'commander';
import { expectedRoot } from '../core/analysis.js';
import type { RecordSummary } from '../core/records.js';
import { type ResumeModel, resumeModel } from '../core/resume.js';
import type { SessionIndex } from '../core/session-index.js';
import { escapeForTerminal, terminalSafeJson } from '../escape.js';
import type { Io } from '../io.js';
import { useColor } from '../io.js';
import { type Paint, type TimeColumn, painter, percent, plural, rowText, timeColumn } from './render.js';
import { loadSession } from './session-arg.js';
import { subagentChain, threadMessages } from '../core/views/conversation.js';

export { subagentChain } from '../core/views/conversation.js';

export interface ShowOptions {
  readonly format: 'text' | 'json';
  readonly intended?: boolean | undefined;
  readonly color?: boolean | undefined;
}

/** One message of `show --format json`. */
export interface ShowJsonMessage {
  readonly uuid: string;
  readonly type: string;
  readonly timestamp: string | null;
  /** The record's excerpt: at most 120 characters of its text. */
  readonly text: string;
  /** Only with `--intended`: resume would not load this message. */
  readonly lost?: boolean;
}

/** Uuids of the messages resume loads. */
/**
 * The rows resume sends, by record rather than uuid: of a uuid two bodies
 * share, resume sends the last and loses the other.
 */
function loadedRows(resume: ResumeModel): Set<RecordSummary> {
  return new Set(resume.messages);
}

/**
 * `{ "messages": [...] }`: exactly the resume model's messages, in resume
 * order; for a subagent transcript, `{ "subagent": true, "messages": [...] }`
 * with its thread, which resume does not load.
 */
export function showJson(index: SessionIndex, resume: ResumeModel, intended: boolean): string {
  const chain = subagentChain(index);
  if (chain !== undefined) {
    const messages = threadMessages(chain).map((m) => ({ uuid: m.uuid as string, type: m.type, timestamp: m.timestamp ?? null, text: m.excerpt }));
    return `${terminalSafeJson({ subagent: true, messages })}\n`;
  }
  const loaded = loadedRows(resume);
  const list = intended ? resume.intendedMessages : resume.messages;
  const messages: ShowJsonMessage[] = list.map((m) => ({
    uuid: m.uuid as string,
    type: m.type,
    timestamp: m.timestamp ?? null,
    text: m.excerpt,
    ...(intended ? { lost: !loaded.has(m) } : {}),
  }));
  return `${terminalSafeJson({ messages })}\n`;
}

/** Why the loaded history begins where it does, when that is worth a line. */
export function cutNote(index: SessionIndex, resume: ResumeModel): string | undefined {
  const end = resume.end;
  switch (end.kind) {
    case 'missing-parent':
      return `⋯ history cut: the parent of line ${end.at.line} (${escapeForTerminal(String(end.at.parentUuid).slice(0, 8))}) is not in the file`;
    case 'cycle':
      return `⋯ history cut: a parentUuid cycle at line ${end.at.line}`;
    case 'root':
      if (end.at.type === 'system' && expectedRoot(index, end.at) === 'compact-boundary') {
        return `⋯ earlier history was compacted (line ${end.at.line})`;
      }
      if (end.at.parentUuid === null && expectedRoot(index, end.at) === undefined) {
        return `⋯ history cut: line ${end.at.line} has parentUuid null`;
      }
      return undefined;
    case 'empty':
      return undefined;
  }
}

export interface ShowRenderOptions {
  readonly intended: boolean;
  /**
   * Characters available for the message text, or a function of the width
   * the times take (a date is added once the conversation spans days).
   */
  readonly textWidth: number | ((timeWidth: number) => number);
  readonly paint: Paint;
}

/** Characters before the text on a message line, for times `timeWidth` wide. */
export function showPrefixWidth(intended: boolean, timeWidth = 8): number {
  return (intended ? 2 : 0) + timeWidth + 2 + 9 + 2;
}

function messageLine(m: RecordSummary, lost: boolean | undefined, options: ShowRenderOptions, time: TimeColumn): string {
  const { paint } = options;
  const role = escapeForTerminal(m.type).padEnd(9);
  const width = typeof options.textWidth === 'number' ? options.textWidth : options.textWidth(time.width);
  const text = rowText(m, width);
  if (lost === true) return `${paint('red', '-')} ${paint('dim', `${time.format(m.time)}  ${role}  ${text}`)}`;
  const mark = lost === undefined ? '' : '  ';
  return `${mark}${paint('dim', time.format(m.time))}  ${paint(m.type === 'user' ? 'cyan' : 'green', role)}  ${text}`;
}

/** The text form: a header, an optional note on where history starts, one line a message. */
export function renderShow(index: SessionIndex, resume: ResumeModel, options: ShowRenderOptions): string {
  const loaded = loadedRows(resume);
  const lines: string[] = [];
  const fidelity = `fidelity ${percent(resume.fidelity)}`;
  const shownPath = escapeForTerminal(index.file.displayPath);
  const chain = subagentChain(index);
  if (chain !== undefined) {
    const thread = threadMessages(chain);
    const time = timeColumn(thread.map((m) => m.time));
    lines.push(
      `${shownPath}: a subagent's transcript, which \`claude --resume\` does not load; its thread has ${plural(thread.length, 'message')}; times UTC`,
    );
    for (const m of thread) lines.push(messageLine(m, undefined, options, time));
    if (thread.length === 0) lines.push('(no messages)');
    return `${lines.join('\n')}\n`;
  }
  if (options.intended) {
    const lostCount = resume.intendedMessages.filter((m) => !loaded.has(m)).length;
    lines.push(
      `${shownPath}: ${plural(resume.intendedMessages.length, 'message')} intended, resume loads ${resume.loaded} (${fidelity}); ` +
        `${lostCount === 0 ? 'none lost' : `- marks the ${plural(lostCount, 'message')} it loses`}; times UTC`,
    );
    const time = timeColumn(resume.intendedMessages.map((m) => m.time));
    for (const m of resume.intendedMessages) lines.push(messageLine(m, !loaded.has(m), options, time));
    if (resume.intendedMessages.length === 0) lines.push('(no messages)');
  } else {
    lines.push(
      `${shownPath}: resume loads ${resume.loaded} of ${plural(resume.total, 'message')} (${fidelity}); times UTC`,
    );
    const note = cutNote(index, resume);
    if (note !== undefined) lines.push(options.paint('yellow', note));
    const time = timeColumn(resume.messages.map((m) => m.time));
    for (const m of resume.messages) lines.push(messageLine(m, undefined, options, time));
    if (resume.messages.length === 0) lines.push('(resume loads no messages)');
    const missing = resume.total - resume.loaded;
    if (missing > 0) {
      lines.push(
        options.paint(
          'yellow',
          `${plural(missing, 'message')} of the conversation ${missing === 1 ? 'is' : 'are'} not loaded; \`--intended\` shows them, \`cclint fix\` repairs the break`,
        ),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Room for message text: the terminal's width on a TTY, else 100 characters. */
export function textWidthFor(io: Io, intended: boolean): (timeWidth: number) => number {
  const columns = io.stdout.isTTY ? io.stdout.columns : undefined;
  if (columns === undefined || columns <= 0) return () => 100;
  return (timeWidth) => Math.max(20, columns - showPrefixWidth(intended, timeWidth) - 1);
}

export function showCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('show')
    .description('print the conversation `claude --resume` would load, one line a message')
    .argument('<session>', 'a session file, or a session id (or its first 8+ characters) under the Claude Code projects folder')
    .option('--intended', 'show the whole conversation with every break bridged, and mark the messages resume would lose')
    .addOption(new Option('-f, --format <name>', 'output format').choices(['text', 'json']).default('text'))
    .option('--no-color', 'no colour, even on a terminal (NO_COLOR is honoured too)')
    .addHelpText(
      'after',
      `
Each line: time (UTC, HH:MM:SS; with the date, YYYY-MM-DD HH:MM:SS, once the conversation
spans days), role, the start of the message's text (newlines as ⏎), and for assistant
turns the tools they call (→ Bash, Read). A subagent's transcript, which resume does not
load, is shown as its own thread (the rows \`cclint tree\` marks *).

Examples:
  cclint show 3f2a9c1e                       a session by id (or its first 8 characters)
  cclint show --intended session.jsonl       what a repair would bring back; - marks what resume loses
  cclint show --format json session.jsonl    {"messages":[{uuid,type,timestamp,text}]} in resume order`,
    )
    .action((session: string, options: ShowOptions) => {
      const index = loadSession(session, io);
      const resume = resumeModel(index);
      const intended = options.intended === true;
      if (options.format === 'json') {
        io.stdout.write(showJson(index, resume, intended));
      } else {
        io.stdout.write(
          renderShow(index, resume, {
            intended,
            textWidth: textWidthFor(io, intended),
            paint: painter(useColor(io.stdout, io.env, options.color)),
          }),
        );
      }
      setExit(0);
    });
}
