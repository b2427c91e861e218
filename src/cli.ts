#!/usr/bin/env node
/**
 * The executable. The only place that sets the process's exit code; every
 * other module returns codes or throws typed errors.
 */
import { main } from './program.js';
import { processIo } from './io.js';

process.on('SIGINT', () => {
  // Commands that write register their own handler to finish atomically;
  // anywhere else nothing is half-written, so stop with the conventional code.
  process.exitCode = 130;
  process.exit();
});

main(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`cclint: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
