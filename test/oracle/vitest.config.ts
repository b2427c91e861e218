import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `npm run test:sdk`: the differential test against the Agent SDK's reader,
// which `npm run test:sdk` installs into this folder first (it needs the
// network). `npm test` leaves this folder out.
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/oracle/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
