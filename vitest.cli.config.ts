import { defineConfig } from 'vitest/config';

// `npm run test:cli`: the differential test against the real Claude Code CLI
// (test/oracle-cli). Slow on first run (about a second per file); answers
// are cached by file content afterwards.
export default defineConfig({
  test: {
    include: ['test/oracle-cli/**/*.test.ts'],
    // Local exploration scripts (gitignored) run only when named.
    exclude: process.env.CCLINT_SCRATCH === undefined ? ['test/oracle-cli/scratch/**', '**/node_modules/**'] : ['**/node_modules/**'],
    testTimeout: 3_600_000,
    hookTimeout: 3_600_000,
    pool: 'forks',
  },
});
