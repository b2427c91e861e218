/**
 * `cclint export <session>`: the conversation `claude --resume` loads (the
 * messages `show` lists, in order) as Markdown, or as the report's
 * single-session HTML page. `--redact` masks secrets by well-known patterns
 * and says on stderr how many. Read-only apart from the `-o` file. Exit 0,
 * or 2 when the session cannot be read or the output cannot be written.
 */
import path from 'node:path';
import { Command, Option } from 'commander';
import { resumeModel } from '../core/resume.js';
import { conversationOf } from '../core/views/conversation.js';
import { RedactionTally, redact } from '../core/views/redact.js';
import { factsOf, titleOf } from '../core/views/sessions.js';
import { escapeForTerminal } from '../escape.js';
import { conversationMarkdownPieces } from '../formatters/markdown.js';
import type { Io } from '../io.js';
import { loadSession } from './session-arg.js';
import { checkWritableTarget, note, runConfig, writeFileFor } from './shared.js';
import { singleSessionHtml } from './report.js';

export interface ExportOptions {
  readonly format: 'md' | 'html';
  readonly redact?: boolean;
  readonly thinking?: boolean;
  readonly outputFile?: string;
}

export function exportCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('export')
    .description('the conversation `claude --resume` loads, as Markdown or HTML, optionally with secrets masked')
    .argument('<session>', 'a session file, or a session id (or its first 8+ characters) under the Claude Code projects folder')
    .addOption(new Option('-f, --format <name>', 'md: Markdown; html: the report\'s page for this one session').choices(['md', 'html']).default('md'))
    .option('--redact', 'mask secrets (API keys, AWS keys, GitHub and Slack tokens, private keys, passwords in URLs, bearer tokens); the count goes to stderr')
    .option('--thinking', 'include Claude\'s thinking (left out by default)')
    .option('-o, --output-file <file>', 'write to this file instead of stdout (folders are created; never a .jsonl path)')
    .addHelpText(
      'after',
      `
Markdown: a heading per message (number, who, time UTC), the text as written, tool calls and
tool results in collapsible <details> blocks with fenced code. The messages are exactly the
ones \`cclint show\` lists, in the same order. HTML: one self-contained page (no network), the
session's tree and findings as \`cclint report\` draws them, then the conversation.
Redaction works by patterns: a secret of an unknown shape is not masked; review before sharing.

Examples:
  cclint export 3f2a9c1e > session.md                 a session by id (or its first 8 characters)
  cclint export --redact -o share.md session.jsonl    secrets masked; "masked 3 secrets" on stderr
  cclint export --format html -o session.html 3f2a9c1e

Exit codes: 0 written, 2 the session cannot be read or the file cannot be written.`,
    )
    .action((session: string, options: ExportOptions) => {
      const target = options.outputFile === undefined ? undefined : path.resolve(io.cwd, options.outputFile);
      if (target !== undefined) checkWritableTarget(`--output-file ${options.outputFile}`, target);
      const index = loadSession(session, io);
      // A session named by id is found only now: the output may not be it either.
      if (target !== undefined) checkWritableTarget(`--output-file ${options.outputFile}`, target, [index.file.path]);
      const resume = resumeModel(index);
      const conversation = conversationOf(index, resume, titleOf(factsOf(index)));
      // In pieces, a message at a time: the whole text of a big session would be gigabytes of strings.
      const pieces =
        options.format === 'html'
          ? singleSessionHtml(index, conversation, { thinking: options.thinking === true }, runConfig(io, undefined, []).lint)
          : conversationMarkdownPieces(conversation, { thinking: options.thinking === true });
      // Each piece is masked whole (a message is never cut in two), and counted.
      const tally = new RedactionTally();
      const redacted = function* (): Generator<string> {
        for (const piece of pieces) {
          const r = redact(piece);
          tally.add(r);
          yield r.text;
        }
      };
      const out = options.redact === true ? redacted() : pieces;
      if (target === undefined) for (const piece of out) io.stdout.write(options.format === 'md' ? escapeForTerminal(piece, { multiline: true }) : piece);
      else writeFileFor(`--output-file ${options.outputFile}`, target, out);
      if (options.redact === true) {
        const kinds = [...tally.byKind].map(([k, n]) => `${n} ${k}`).join(', ');
        note(io, `masked ${tally.count} secret${tally.count === 1 ? '' : 's'}${tally.count > 0 ? ` (${kinds})` : ''}`);
      }
      setExit(0);
    });
}
