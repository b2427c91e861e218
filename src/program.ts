/**
 * Builds a fresh commander program for one run. A factory, not a singleton,
 * so every test gets its own program with captured output; commander's own
 * errors are turned into exit code 2 (bad usage) instead of exiting.
 */
import { Command, CommanderError } from 'commander';
import { CclintError, UsageError } from './core/errors.js';
import { escapeForTerminal } from './escape.js';
import type { Io } from './io.js';
import { VERSION } from './version.js';
import { boundHeapGrowth } from './tuning.js';

/** Commands that write transcripts. */
const WRITERS: ReadonlySet<string> = new Set(['fix', 'restore', 'rename']);

type SetExit = (code: number) => void;

/**
 * Every command, in the order help lists them, with the module that defines
 * it. A module is loaded only when its command runs, or when help lists
 * them all: the program loads its modules one by one at start-up, and all
 * of them took `check` 77 ms where its own take 60 (on a warm
 * `check --cache` of a big tree, start-up is most of the run).
 */
const COMMANDS: ReadonlyArray<readonly [string, (io: Io, setExit: SetExit) => Promise<Command>]> = [
  ['check', async (io, setExit) => (await import('./commands/check.js')).checkCommand(io, setExit)],
  ['fix', async (io, setExit) => (await import('./commands/fix.js')).fixCommand(io, setExit)],
  ['sessions', async (io, setExit) => (await import('./commands/sessions.js')).sessionsCommand(io, setExit)],
  ['search', async (io, setExit) => (await import('./commands/search.js')).searchCommand(io, setExit)],
  ['report', async (io, setExit) => (await import('./commands/report.js')).reportCommand(io, setExit)],
  ['export', async (io, setExit) => (await import('./commands/export.js')).exportCommand(io, setExit)],
  ['rename', async (io, setExit) => (await import('./commands/rename.js')).renameCommand(io, setExit)],
  ['show', async (io, setExit) => (await import('./commands/show.js')).showCommand(io, setExit)],
  ['tree', async (io, setExit) => (await import('./commands/tree.js')).treeCommand(io, setExit)],
  ['restore', async (io, setExit) => (await import('./commands/restore.js')).restoreCommand(io, setExit)],
  ['rules', async (io) => (await import('./commands/rules.js')).rulesCommand(io)],
  ['explain', async (io) => (await import('./commands/rules.js')).explainCommand(io)],
];

/**
 * The program with the command `argv` names, with none for `--version`, or
 * with every command when it names none of them (help, a mistyped name that
 * help then corrects).
 */
async function createProgram(io: Io, setExit: SetExit, argv: readonly string[]): Promise<Command> {
  const version = argv.length === 1 && (argv[0] === '-v' || argv[0] === '--version');
  const named = version ? [] : COMMANDS.filter(([name]) => name === argv[0]);
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
cclint reads them and writes a transcript only when you run \`cclint fix\`, \`restore\` or \`rename\`.

Start with:
  cclint check                  lint every session and see what resume would lose
  cclint explain phantom-parent what a rule finds and how it is fixed
  cclint search "some words"    find a session by what was said, and the command that resumes it
  cclint report -o report.html  every session's tree as a picture, in one HTML file`,
    );
  const commands = await Promise.all((named.length > 0 || version ? named : COMMANDS).map(([, make]) => make(io, setExit)));
  for (const command of commands) {
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
  try {
    const program = await createProgram(
      io,
      (code) => {
        exitCode = code;
      },
      argv,
    );
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
