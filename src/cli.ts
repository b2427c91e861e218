#!/usr/bin/env node
/**
 * The executable. The only place that sets the process's exit code; every
 * other module returns codes or throws typed errors.
 */
import { escapeForTerminal } from './escape.js';
import { handleSigint } from './interrupt.js';
import { processIo } from './io.js';
import { tuneV8 } from './tuning.js';

// Before the linter's modules load, so that the tuning applies to all of them.
tuneV8();
const { main } = await import('./program.js');

process.on('SIGINT', () => {
  // Outside a write nothing can be half-written: stop with the conventional
  // code. During a write, the write finishes first (see interrupt.ts).
  handleSigint(() => {
    process.stderr.write('\ncclint: interrupted\n');
    process.exitCode = 130;
    process.exit();
  });
});

main(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`cclint: ${escapeForTerminal(error instanceof Error ? error.message : String(error))}\n`);
    process.exitCode = 2;
  },
);
