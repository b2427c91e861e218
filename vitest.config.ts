import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Needs the real Claude Code binary: `npm run test:cli`.
    exclude: ['test/oracle-cli/**', '**/node_modules/**'],
    // The corpus sweep and the built-binary tests read real files; keep them
    // within a generous but bounded time on a 2-core CI machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
