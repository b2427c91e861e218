/**
 * Threads hand results back in whatever order they finish. Here the lint
 * step is made to answer in reverse, as a slow first folder would, and the
 * report must still come out by path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { run, sandbox, type Sandbox } from '../support/cli.js';

vi.mock('../../src/engine/parallel.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/engine/parallel.js')>();
  return {
    ...real,
    lintGroups: async (...args: Parameters<typeof real.lintGroups>) => {
      const outcome = await real.lintGroups(...args);
      return { results: [...outcome.results].reverse(), failures: [...outcome.failures].reverse() };
    },
  };
});

describe('cclint check, results arriving out of order', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('reports files and empty-file notes in path order', async () => {
    const projects = path.join(box.root, 'projects');
    const names = ['-a', '-b', '-c'];
    for (const name of names) {
      fs.mkdirSync(path.join(projects, name), { recursive: true });
      fs.writeFileSync(path.join(projects, name, '11111111-1111-4111-8111-111111111111.jsonl'), '');
    }
    const r = await run(['check', '--format', 'json', projects], { env: box.env, cwd: box.root });
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toEqual(
      names.map((name) => `cclint: projects/${name}/11111111-1111-4111-8111-111111111111.jsonl: empty file, nothing to check`),
    );
    const report = JSON.parse(r.stdout) as { results: Array<{ filePath: string }> };
    expect(report.results.map((x) => x.filePath)).toEqual(
      names.map((name) => `projects/${name}/11111111-1111-4111-8111-111111111111.jsonl`),
    );
  });
});
