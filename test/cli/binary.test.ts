/**
 * A few runs of the built executable (`dist/cli.js`, built by `npm ci`'s
 * prepare step), to catch packaging problems the in-process tests cannot:
 * the shebang, ESM resolution from dist/, the exit code reaching the shell.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sandbox } from '../support/cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist', 'cli.js');
const box = sandbox();
afterAll(() => box.cleanup());

function cclint(...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { cwd: root, env: box.env, encoding: 'utf8' });
}

describe('the built cclint binary', () => {
  it('prints its version', () => {
    const r = cclint('--version');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('exits 1 on the demo project and reports JSON', () => {
    const r = cclint('check', '--format', 'json', 'fixtures/demo');
    expect(r.status).toBe(1);
    expect((JSON.parse(r.stdout) as { summary: { errorCount: number } }).summary.errorCount).toBe(5);
  });

  it('exits 2 on bad usage, with the reason on stderr', () => {
    const r = cclint('check', '--max-warnings', 'many', 'fixtures/demo');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--max-warnings');
  });

  it('refuses an interactive fix without a terminal, writing nothing (exit 2)', () => {
    const r = cclint('fix', 'fixtures/demo');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--yes');
  });
});
