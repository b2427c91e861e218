import fs from 'node:fs';
import { defineConfig } from 'vitest/config';

// A test folder with a vitest config of its own (an oracle that needs its own
// install, and the network to get it) runs only through its own npm script.
const ownSuites = fs
  .readdirSync('test', { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(`test/${entry.name}/vitest.config.ts`))
  .map((entry) => `test/${entry.name}/**`);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...ownSuites],
    // The corpus sweep and the built-binary tests read real files; keep them
    // within a generous but bounded time on a 2-core CI machine.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
