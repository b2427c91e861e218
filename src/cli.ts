#!/usr/bin/env node
/**
 * The executable. The only place that sets the process's exit code; every
 * other module returns codes or throws typed errors.
 */
import { handleSigint } from './interrupt.js';

// First of all, so that no Ctrl-C is lost while the rest loads. Outside a
// write nothing can be half-written: stop with the conventional code. During
// a write, the write finishes first (see interrupt.ts).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    handleSigint(() => {
      process.stderr.write('\ncclint: interrupted\n');
      process.exitCode = 130;
      process.exit();
    });
  });
}

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
