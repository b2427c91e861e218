#!/usr/bin/env node
/**
 * The executable. The only place that sets the process's exit code; every
 * other module returns codes or throws typed errors.
 */
import { onInterruptExit } from './interrupt.js';

// How a command that handles Ctrl-C (one that writes transcripts) ends on
// one outside a write: nothing is half-written, so with the conventional
// code. During a write, the write finishes first; other commands leave the
// signal to end the process at once (see interrupt.ts).
onInterruptExit(() => {
  process.stderr.write('\ncclint: interrupted\n');
  process.exitCode = 130;
  process.exit();
});

const { escapeForTerminal } = await import('./escape.js');
const { processIo } = await import('./io.js');
const { tuneV8 } = await import('./tuning.js');
// Before the linter's modules load, so that the tuning applies to all of them.
tuneV8();
const { main } = await import('./program.js');

main(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`cclint: ${escapeForTerminal(error instanceof Error ? error.message : String(error))}\n`);
    process.exitCode = 2;
  },
);
