/**
 * `cclint tree <session>`: the session's records as a `git log --graph`-style
 * tree, oldest first (read top to bottom like the conversation).
 *
 * - Rows are the chain records (user, assistant, system, attachment);
 *   progress and metadata records are skipped, and a parent link through a
 *   progress record is followed to the shown record above it.
 * - `*` a record on the chain `claude --resume` loads (the main thread),
 *   `o` any other record, `!` the first record of an orphaned branch (a root
 *   `expectedRoot` does not accept, or a record whose parent is missing)
 *   with its {@link branchScore}, `=` a compact boundary, drawn under the
 *   record it logically follows (`logicalParentUuid`).
 * - A record with several children opens a fork: `|\` and the side branch
 *   one column to the right, shown in full before the line that goes on
 *   (the one leading to the resumed leaf, else the one that lasted longest)
 *   continues in the original column. It is `git log --graph` mirrored
 *   top to bottom, so forks open with `|\` rather than close with `|/`.
 * - Linear runs of more than 8 records are collapsed to `… N more` unless
 *   `--all`.
 */
import { Command } from 'commander';
import { resumeModel } from '../core/resume.js';
import { COLLAPSE_OVER, buildTree } from '../core/views/tree.js';
import { renderTree } from '../formatters/tree.js';
import type { Io } from '../io.js';
import { useColor } from '../io.js';
import { painter } from './render.js';
import { loadSession } from './session-arg.js';

// The model (src/core/views/tree.ts) and its text renderer (src/formatters/tree.ts), re-exported for existing importers.
export { type Glyph, type SessionTree, type TreeLine, type TreeNode, COLLAPSE_OVER, buildTree } from '../core/views/tree.js';
export { type TreeRenderOptions, graphWidth, renderTree } from '../formatters/tree.js';

export function treeCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('tree')
    .description('the conversation as a `git log --graph`-style tree: main thread, forks, orphaned branches (oldest first)')
    .argument('<session>', 'a session file, or a session id (or its first 8+ characters) under the Claude Code projects folder')
    .option('-a, --all', `show every record (by default linear runs of more than ${COLLAPSE_OVER} are collapsed to "… N more")`)
    .option('--no-color', 'no colour, even on a terminal (NO_COLOR is honoured too)')
    .addHelpText(
      'after',
      `
Oldest first: the graph reads top to bottom like the conversation (git log --graph upside down).
  *  a record on the chain \`claude --resume\` loads (the main thread)
  o  a record resume does not load (an abandoned fork, history before a break)
  !  the first record of an orphaned branch: its parent is null or missing where it should not be;
     the score (0-1) says how likely the branch is a broken-off part of the conversation
  =  a compact boundary, under the record it summarises
  |\\ a fork: the side branch is shown first, then the line that goes on
Rows: graph, uuid (8 characters), type, time (UTC; with the date once the session spans days), the start
of the text. Progress and metadata records are not shown. In a subagent's transcript, which resume does not
load, * marks the subagent's own thread: the messages \`cclint show\` lists for it.

Examples:
  cclint tree 3f2a9c1e              a session by id (or its first 8 characters)
  cclint tree --all session.jsonl   every record, no collapsed runs`,
    )
    .action((session: string, options: { all?: boolean; color?: boolean }) => {
      const index = loadSession(session, io);
      const tree = buildTree(index, resumeModel(index), { all: options.all === true });
      const columns = io.stdout.isTTY ? io.stdout.columns : undefined;
      io.stdout.write(
        renderTree(index.file.displayPath, tree, {
          paint: painter(useColor(io.stdout, io.env, options.color)),
          // Graph and times, then the uuid, type and gaps around them.
          textWidth: (graphAndTime) => (columns !== undefined && columns > 0 ? Math.max(20, columns - graphAndTime - 1 - 9 - 11 - 2 - 1) : 72),
        }),
      );
      setExit(0);
    });
}
