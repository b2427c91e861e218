import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm run test:cli`: cclint judged by the real Claude Code CLI, which
// `npm run test:cli` installs into this folder first (it needs the network;
// 381 MB). Slow on a first run (about a second per file asked); answers are
// cached by file content afterwards. `npm test` leaves this folder out.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/oracle-cli/**/*.test.ts'],
    // Local exploration scripts (gitignored) run only when asked for.
    exclude: process.env.CCLINT_SCRATCH === undefined ? ['test/oracle-cli/scratch/**', '**/node_modules/**'] : ['**/node_modules/**'],
    testTimeout: 3_600_000,
    hookTimeout: 3_600_000,
    pool: 'forks',
  },
});
