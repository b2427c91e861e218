/**
 * Builds a fresh commander program for one run. A factory, not a singleton,
 * so every test gets its own program with captured output; commander's own
 * errors are turned into exit code 2 (bad usage) instead of exiting.
 */
import { Command, CommanderError } from 'commander';
import { CclintError, UsageError } from './core/errors.js';
import { escapeForTerminal } from './escape.js';
import type { Io } from './io.js';
import { checkCommand } from './commands/check.js';
import { fixCommand } from './commands/fix.js';
import { explainCommand, rulesCommand } from './commands/rules.js';
import { restoreCommand } from './commands/restore.js';
import { exportCommand } from './commands/export.js';
import { renameCommand } from './commands/rename.js';
import { reportCommand } from './commands/report.js';
import { searchCommand } from './commands/search.js';
import { sessionsCommand } from './commands/sessions.js';
import { showCommand } from './commands/show.js';
import { treeCommand } from './commands/tree.js';
import { VERSION } from './version.js';
import { boundHeapGrowth } from './tuning.js';

/** Commands that write transcripts. */
const WRITERS: ReadonlySet<string> = new Set(['fix', 'restore', 'rename']);

export function createProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command('cclint')
    .description('Lint and repair Claude Code session transcripts, so that `claude --resume` brings back the whole conversation.')
    .version(VERSION, '-v, --version')
    .showHelpAfterError('(run with --help for usage)')
    // Commander's errors quote the arguments, which may be names found on disk.
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(escapeForTerminal(s, { multiline: true })),
    })
    .exitOverride()
    .addHelpText(
      'after',
      `
Transcripts live in ~/.claude/projects/<project>/<session>.jsonl ($CLAUDE_CONFIG_DIR/projects if set).
cclint reads them and never writes unless you run \`cclint fix\`.

Start with:
  cclint check                  lint every session and see what resume would lose
  cclint explain phantom-parent what a rule finds and how it is fixed
  cclint search "some words"    find a session by what was said, and the command that resumes it
  cclint report -o report.html  every session's tree as a picture, in one HTML file`,
    );
  for (const command of [
    checkCommand(io, setExit),
    fixCommand(io, setExit),
    sessionsCommand(io, setExit),
    searchCommand(io, setExit),
    reportCommand(io, setExit),
    exportCommand(io, setExit),
    renameCommand(io, setExit),
    showCommand(io, setExit),
    treeCommand(io, setExit),
    restoreCommand(io, setExit),
    rulesCommand(io),
    explainCommand(io),
  ]) {
    // The commands that write hold a plan or a copy beside an index: their heap grows by small steps (tuning.ts).
    if (WRITERS.has(command.name())) command.hook('preAction', () => void boundHeapGrowth());
    program.addCommand(command.exitOverride().configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(escapeForTerminal(s, { multiline: true })),
    }));
  }
  return program;
}

/**
 * Runs one command line and returns its exit code. Never calls
 * `process.exit`; only `src/cli.ts` turns the code into the process's.
 */
export async function main(argv: readonly string[], io: Io): Promise<number> {
  let exitCode = 0;
  const program = createProgram(io, (code) => {
    exitCode = code;
  });
  try {
    if (argv.length === 0) {
      program.outputHelp({ error: true });
      return 2;
    }
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version "fail" with exit code 0.
      return error.exitCode === 0 ? 0 : 2;
    }
    // A progress line may still be on the terminal: the message starts on a clean line.
    if (io.stderr.isTTY) io.stderr.write('\r\u001b[2K');
    if (error instanceof CclintError) {
      // Messages name paths and values from disk: one escaped line.
      io.stderr.write(`cclint: ${escapeForTerminal(error.message)}\n`);
      return error.exitCode;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    const shown = escapeForTerminal(detail.replaceAll(io.env.HOME ?? '\u0000', '~'), { multiline: true });
    io.stderr.write(
      `cclint: internal error (cclint ${VERSION}, Node ${process.version}); please report it with this output:\n${shown}\n`,
    );
    return 2;
  }
}

export { UsageError };
