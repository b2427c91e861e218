/**
 * A few runs of the built executable (`dist/cli.js`, built by `npm ci`'s
 * prepare step), to catch packaging problems the in-process tests cannot:
 * the shebang, ESM resolution from dist/, the exit code reaching the shell.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/rules/index.js';
import { sandbox } from '../support/cli.js';
import { CORPUS, corpusFiles } from '../support/corpus.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist', 'cli.js');
const box = sandbox();
afterAll(() => box.cleanup());

function cclint(...args: string[]) {
  return cclintWith({}, ...args);
}

function cclintWith(env: NodeJS.ProcessEnv, ...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    env: { ...box.env, ...env },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
}

describe('the built cclint binary', () => {
  it('prints its version', () => {
    const r = cclint('--version');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('prints the documentation of every rule, from the pages the package ships', () => {
    for (const { meta } of RULES) {
      const r = cclint('explain', meta.id);
      expect(r.status, meta.id).toBe(0);
      expect(r.stdout).toBe(fs.readFileSync(path.join(root, 'docs', 'rules', `${meta.id}.md`), 'utf8'));
      expect(r.stdout).toContain('## What it detects');
    }
  });

  it('ships no source map (none would find its source)', () => {
    const maps = (fs.readdirSync(path.join(root, 'dist'), { recursive: true }) as string[]).filter((f) => f.endsWith('.map'));
    expect(maps).toEqual([]);
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

  // Worker threads only run from the built files, so this is where the
  // threaded path is checked: same report, byte for byte, as one thread.
  it('reports the same on threads as in one thread, over the bundled corpus', () => {
    const single = cclintWith({ CCLINT_THREADS: '1' }, 'check', '--format', 'json', CORPUS);
    const threaded = cclintWith({ CCLINT_THREADS: '3' }, 'check', '--format', 'json', CORPUS);
    expect(single.status).toBe(1);
    expect(threaded.status).toBe(single.status);
    expect(threaded.stderr).toBe(single.stderr);
    expect(threaded.stdout).toBe(single.stdout);
    const report = JSON.parse(threaded.stdout) as { results: unknown[] };
    expect(report.results.length).toBe(corpusFiles().length);
  });

  it('gives the same notes and report on four threads as on one, with empty files in several folders', () => {
    const demo = path.join(root, 'fixtures', 'demo');
    const projects = path.join(box.root, 'threads');
    for (const name of ['-a', '-b', '-c', '-d']) {
      fs.cpSync(demo, path.join(projects, name), { recursive: true });
      fs.writeFileSync(path.join(projects, name, '00000000-0000-4000-8000-000000000000.jsonl'), '');
    }
    const single = cclintWith({ CCLINT_THREADS: '1' }, 'check', '--format', 'json', projects);
    const threaded = cclintWith({ CCLINT_THREADS: '4' }, 'check', '--format', 'json', projects);
    const empties = single.stderr.split('\n').filter((l) => l.includes('empty file'));
    expect(empties).toHaveLength(4);
    expect(empties).toEqual([...empties].sort());
    expect(threaded.stderr).toBe(single.stderr);
    expect(threaded.stdout).toBe(single.stdout);
  });

  it('stops quietly when the reader closes the pipe early, keeping its own exit code', () => {
    // One rule that finds no error in the corpus: the run's own code is 0,
    // which a crash (exit 1) could not give. Its report, over 70 kB, is more
    // than a pipe holds (64 KiB), so the writes after \`head\` exits meet EPIPE.
    const command = `"${process.execPath}" "${cli}" check --format json --rule string-content "${CORPUS}"`;
    const full = spawnSync('bash', ['-c', `${command} | wc -c`], { cwd: root, env: box.env, encoding: 'utf8' });
    expect(Number(full.stdout.trim())).toBeGreaterThan(70_000);
    const r = spawnSync('bash', ['-c', `set -o pipefail; ${command} | head -c 100 >/dev/null; echo "status \${PIPESTATUS[0]}" >&2`], {
      cwd: root,
      env: box.env,
      encoding: 'utf8',
    });
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.stderr).not.toContain('Error');
    expect(r.stderr).toContain('status 0');
  });

  it('refuses an interactive fix without a terminal, writing nothing (exit 2)', () => {
    const r = cclint('fix', 'fixtures/demo');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--yes');
  });
});
