/**
 * `search --cache`: a search with the cache prints exactly what a search
 * without it prints, byte for byte, whatever happened to the files in
 * between (appends, torn tails, rewrites of the same size, truncations,
 * deletions, new files, parents moved to other files); a session whose
 * files did not change is not indexed again; and a search without the
 * cache parses each transcript line once, even for a word said everywhere.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionIndex } from '../../src/core/session-index.js';
import { run, sandbox, type Sandbox } from '../support/cli.js';
import { demoWithTeam, jsonlFiles, prng, repositoryRoot } from '../support/tree.js';

const boxes: Sandbox[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const box of boxes.splice(0)) box.cleanup();
});

function projects(): { box: Sandbox; root: string } {
  const box = sandbox();
  boxes.push(box);
  const root = demoWithTeam(box);
  return { box, root };
}

/** Plain words said everywhere, rarely and nowhere, a phrase, a regular expression, each with and without --all. */
const SEARCHES: ReadonlyArray<readonly string[]> = [
  ['the'],
  ['--all', 'the'],
  ['validate the EMAIL'],
  ['--all', 'form'],
  ['--regex', 'fail(ing|ed)'],
  ['--all', '--regex', 'T[a-z]+s'],
  ['nowhere-at-all'],
];

describe('search --cache', () => {
  for (const seed of [1, 2]) {
    it(`prints byte for byte what a search without the cache prints, over random appends, rewrites and deletions (seed ${seed})`, async () => {
      const { box, root } = projects();
      const random = prng(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
      const pool = jsonlFiles(root).flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l !== ''));
      const uuids = pool.flatMap((l) => /"uuid":"([^"]+)"/.exec(l)?.[1] ?? []);
      const sources = jsonlFiles(root).map((f) => fs.readFileSync(f));
      const ops: string[] = [];
      let matched = 0;
      for (let step = 0; step < 14; step++) {
        const files = jsonlFiles(root);
        const file = pick(files);
        const kind = random();
        if (kind < 0.35) {
          // A record appended, sometimes under a parent in another file or nowhere, sometimes torn.
          let line = pick(pool);
          if (random() < 0.5) line = line.replace(/"parentUuid":("[^"]*"|null)/, `"parentUuid":"${random() < 0.3 ? 'ffffffff-0000-4000-8000-000000000000' : pick(uuids)}"`);
          const torn = random() < 0.2;
          fs.appendFileSync(file, torn ? line.slice(0, Math.floor(line.length / 2)) : `${line}\n`);
          ops.push(`append${torn ? ' torn' : ''} ${path.basename(file)}`);
        } else if (kind < 0.55) {
          // The same size, the old modification time, other words: "the" becomes "tho".
          const bytes = fs.readFileSync(file);
          const at = bytes.indexOf('the ', Math.floor(random() * bytes.length));
          if (at !== -1) {
            const stat = fs.statSync(file);
            bytes[at + 2] = 'o'.charCodeAt(0);
            fs.writeFileSync(file, bytes);
            fs.utimesSync(file, stat.atime, stat.mtime);
          }
          ops.push(`same-size rewrite ${path.basename(file)}`);
        } else if (kind < 0.65 && files.length > 3) {
          fs.rmSync(file);
          ops.push(`delete ${path.basename(file)}`);
        } else if (kind < 0.8) {
          const name = `${step % 4}0000000-0000-4000-8000-00000000000${step % 10}.jsonl`;
          const dir = path.dirname(pick(files.filter((f) => !f.includes('subagents'))));
          fs.writeFileSync(path.join(dir, name), pick(sources));
          ops.push(`new ${name}`);
        } else if (kind < 0.9) {
          const bytes = fs.readFileSync(file);
          fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length * random())));
          ops.push(`truncate ${path.basename(file)}`);
        } else {
          ops.push('nothing');
        }
        for (const search of SEARCHES) {
          const args = ['search', '--format', 'json', ...search, root];
          const plain = await run(args, { env: box.env, cwd: box.root });
          const cached = await run([...args, '--cache'], { env: box.env, cwd: box.root });
          expect({ ops, search, stdout: cached.stdout, stderr: cached.stderr, code: cached.code }).toEqual({
            ops,
            search,
            stdout: plain.stdout,
            stderr: plain.stderr,
            code: plain.code,
          });
          if (plain.code === 0) matched++;
          // Again: every session that may hold the text comes from the cache, none is indexed.
          const built = vi.spyOn(SessionIndex, 'build');
          const again = await run([...args, '--cache'], { env: box.env, cwd: box.root });
          expect({ search, stdout: again.stdout }).toEqual({ search, stdout: plain.stdout });
          expect(built).not.toHaveBeenCalled();
          built.mockRestore();
        }
      }
      // The searches found something most of the time (they are not all "no match").
      expect(matched).toBeGreaterThan(SEARCHES.length * 14 * 0.5);
      const cacheDir = path.join(box.cclintHome, 'cache');
      expect(fs.statSync(cacheDir).mode & 0o777).toBe(0o700);
      for (const name of fs.readdirSync(cacheDir)) expect(fs.statSync(path.join(cacheDir, name)).mode & 0o777).toBe(0o600);
    });
  }

  it('prints the same on worker threads, with and without the cache (the built binary)', () => {
    const { box, root } = projects();
    const cli = path.join(repositoryRoot, 'dist', 'cli.js');
    const cclint = (threads: string, ...args: string[]) =>
      spawnSync(process.execPath, [cli, 'search', '--format', 'json', ...args, root], { cwd: box.root, env: { ...box.env, CCLINT_THREADS: threads }, encoding: 'utf8' });
    for (const search of [['the'], ['--all', 'form']]) {
      const plain = cclint('1', ...search);
      expect(plain.status).toBe(0);
      // Threads filling the cache, threads reading it, one thread reading it.
      for (const run of [cclint('3', ...search), cclint('2', ...search, '--cache'), cclint('3', ...search, '--cache'), cclint('1', ...search, '--cache')]) {
        expect({ search, stdout: run.stdout, stderr: run.stderr, status: run.status }).toEqual({ search, stdout: plain.stdout, stderr: plain.stderr, status: plain.status });
      }
    }
  });

  it('reads only the session that changed: the others come from the cache', async () => {
    const { box, root } = projects();
    const args = ['search', '--format', 'json', 'the', root, '--cache'];
    const first = await run(args, { env: box.env, cwd: box.root });
    expect(first.code).toBe(0);
    const session = jsonlFiles(path.join(root, '-home-dev-webapp'))[0] as string;
    fs.appendFileSync(session, `${fs.readFileSync(session, 'utf8').split('\n')[2]}\n`);
    const built = vi.spyOn(SessionIndex, 'build');
    const second = await run(args, { env: box.env, cwd: box.root });
    expect(built.mock.calls.map(([file]) => file.path)).toEqual([session]);
    built.mockRestore();
    expect(second.stdout).toBe((await run(args.slice(0, -1), { env: box.env, cwd: box.root })).stdout);
  });

  it('ignores a corrupt entry with a warning and writes it again', async () => {
    const { box, root } = projects();
    const args = ['search', '--format', 'json', 'the', root];
    const plain = await run(args, { env: box.env, cwd: box.root });
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    const cacheDir = path.join(box.cclintHome, 'cache');
    const victim = path.join(cacheDir, fs.readdirSync(cacheDir)[0] as string);
    fs.writeFileSync(victim, 'not a cache');
    const corrupt = await run([...args, '--cache'], { env: box.env, cwd: box.root });
    expect(corrupt.stdout).toBe(plain.stdout);
    expect(corrupt.stderr).toContain('is corrupt (not a cclint cache file)');
    const healed = await run([...args, '--cache'], { env: box.env, cwd: box.root });
    expect(healed).toEqual(plain);
  });

  it('refuses to keep the cache inside the projects root (exit 2)', async () => {
    const { box, root } = projects();
    const r = await run(['search', '--cache', 'the', root], { env: { ...box.env, CCLINT_HOME: path.join(root, 'state') }, cwd: box.root });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refusing to keep the cache at');
    expect(fs.existsSync(path.join(root, 'state'))).toBe(false);
  });
});

describe('search without the cache', () => {
  it('parses each transcript line once, even for a word said on every line', async () => {
    const box = sandbox();
    boxes.push(box);
    const dir = path.join(box.configDir, 'projects', '-home-u-proj');
    fs.mkdirSync(dir, { recursive: true });
    let lines = 0;
    for (let s = 1; s <= 3; s++) {
      const sessionId = `5e550000-0000-4000-8000-00000000000${s}`;
      const rows: string[] = [];
      let parent: string | null = null;
      for (let n = 1; n <= 100; n++) {
        const uuid = `${String(s * 1000 + n).padStart(8, '0')}-0000-4000-8000-000000000000`;
        const type = n % 2 === 1 ? 'user' : 'assistant';
        // Past the summary's excerpt (whose non-ASCII the index reads from UTF-8 again, for every command), the text is not ASCII.
        const pad = 'and so on, '.repeat(20);
        const content = type === 'user' ? `question ${n}: ${pad}the café, again` : [{ type: 'text', text: `answer ${n}: ${pad}the café is open` }];
        const message = type === 'user' ? { role: 'user', content } : { role: 'assistant', id: `msg_${s}_${n}`, type: 'message', model: 'claude', content };
        rows.push(JSON.stringify({ parentUuid: parent, isSidechain: false, type, message, uuid, timestamp: new Date(Date.UTC(2026, 0, 5, 3, 0, n)).toISOString(), cwd: '/home/u/proj', sessionId }));
        parent = uuid;
      }
      fs.writeFileSync(path.join(dir, `${sessionId}.jsonl`), `${rows.join('\n')}\n`);
      lines += rows.length;
    }
    const parse = vi.spyOn(JSON, 'parse');
    const r = await run(['search', '--format', 'json', 'THE CAFÉ', dir], { env: box.env, cwd: box.root });
    const parsedLines = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.startsWith('{"parentUuid"')).length;
    parse.mockRestore();
    expect(r.code).toBe(0);
    const sessions = JSON.parse(r.stdout) as Array<{ hits: unknown[] }>;
    expect(sessions.map((x) => x.hits.length)).toEqual([100, 100, 100]);
    expect(parsedLines).toBe(lines);
  });
});
