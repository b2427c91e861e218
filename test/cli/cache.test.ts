/**
 * `--cache`: a run with the cache reports exactly what a run without it
 * reports, byte for byte, whatever happened to the files in between
 * (appends, torn tails, rewrites of the same size, deletions, new files,
 * a subagent's main session going away); an unchanged project folder is not
 * read; a corrupt cache is ignored with a warning; the cache never lives in
 * the projects root.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import v8 from 'node:v8';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { cachedOutcomes, groupStore, lintFolderCached, plainResult, racyIndexer, type CacheConfig, type FolderLinter, type GroupStore } from '../../src/engine/cache.js';
import { lintFolder } from '../../src/engine/linter.js';
import { RULES } from '../../src/rules/index.js';
import { SessionIndex } from '../../src/core/session-index.js';
import { run, sandbox, type Sandbox } from '../support/cli.js';
import { copyTree, demoWithTeam, jsonlFiles, prng, repositoryRoot } from '../support/tree.js';

/** What these tests read of a result: its findings' fixes. */
interface FileResultLike {
  readonly findings: ReadonlyArray<{ readonly fix?: { readonly edits?: unknown } | undefined }>;
}

const boxes: Sandbox[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const box of boxes.splice(0)) box.cleanup();
});

/** A projects root with the demo project and a session with subagents (parents across files). */
/** What `act` gives, and how many times it opened one of `files` (fs.openSync) meanwhile. */
async function opensOf<T>(files: readonly string[], act: () => T | Promise<T>): Promise<{ value: Awaited<T>; opens: number }> {
  const opened = vi.spyOn(fs, 'openSync');
  try {
    const value = await act();
    return { value, opens: opened.mock.calls.filter(([p]) => files.includes(String(p))).length };
  } finally {
    opened.mockRestore();
  }
}

/** Looks a one-file group up (a miss), reads the file as the linter would (hashing it when racy), stores `value` and saves. */
function storeAfterReading(store: GroupStore<number>, projectDir: string, file: string, root: string, value: number): void {
  const miss = store.lookup(projectDir, [file]);
  if (miss.hit !== undefined) throw new Error('unexpected hit');
  const hashes = new Map<string, string>();
  racyIndexer(miss.racy, hashes)(classifyPath(file, root));
  miss.store(value, false, hashes);
  store.save();
}

function projects(): { box: Sandbox; root: string } {
  const box = sandbox();
  boxes.push(box);
  const root = demoWithTeam(box);
  return { box, root };
}

async function both(box: Sandbox, args: string[]): Promise<{ plain: Awaited<ReturnType<typeof run>>; cached: Awaited<ReturnType<typeof run>> }> {
  const plain = await run(args, { env: box.env, cwd: box.root });
  const cached = await run([...args, '--cache'], { env: box.env, cwd: box.root });
  return { plain, cached };
}

describe('check --cache and sessions --cache', () => {
  for (const [seed, keptIndexes] of [[1, false], [2, false], [3, false], [4, true], [5, true], [6, true]] as const) {
    it(`reports byte for byte what a run without the cache reports, over random appends, rewrites and deletions (seed ${seed}${keptIndexes ? ', every session keeping its index' : ''})`, async () => {
      const { box, root } = projects();
      // With CCLINT_CACHE_INDEX_MB=0 every session keeps its index, and one that only grew is read from where it ended.
      if (keptIndexes) box.env.CCLINT_CACHE_INDEX_MB = '0';
      const random = prng(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
      // Lines to append come from every file at the start, so appended
      // records can name parents in other files, or none that exists.
      const pool = jsonlFiles(root).flatMap((f) => fs.readFileSync(f, 'utf8').split('\n').filter((l) => l !== ''));
      const uuids = pool.flatMap((l) => /"uuid":"([^"]+)"/.exec(l)?.[1] ?? []);
      const sources = jsonlFiles(root).map((f) => fs.readFileSync(f));
      const ops: string[] = [];
      for (let step = 0; step < 24; step++) {
        const files = jsonlFiles(root);
        const file = pick(files);
        const kind = random();
        if (kind < 0.35) {
          // Append a record, sometimes with another parent, sometimes torn (no newline).
          let line = pick(pool);
          if (random() < 0.5) line = line.replace(/"parentUuid":("[^"]*"|null)/, `"parentUuid":"${random() < 0.3 ? 'ffffffff-0000-4000-8000-000000000000' : pick(uuids)}"`);
          const torn = random() < 0.2;
          fs.appendFileSync(file, torn ? line.slice(0, Math.floor(line.length / 2)) : `${line}\n`);
          ops.push(`append${torn ? ' torn' : ''} ${path.basename(file)}`);
        } else if (kind < 0.55) {
          // Rewrite in place keeping the size: one hex digit of a uuid changes.
          const bytes = fs.readFileSync(file);
          const text = bytes.toString('latin1');
          const at = text.indexOf('"parentUuid":"', Math.floor(random() * text.length));
          if (at !== -1) {
            const digit = at + '"parentUuid":"'.length;
            const old = text[digit];
            bytes[digit] = (old === 'a' ? 'b' : 'a').charCodeAt(0);
            const stat = fs.statSync(file);
            fs.writeFileSync(file, bytes);
            fs.utimesSync(file, stat.atime, stat.mtime); // even with the old modification time
          }
          ops.push(`same-size rewrite ${path.basename(file)}`);
        } else if (kind < 0.65 && files.length > 3) {
          fs.rmSync(file);
          ops.push(`delete ${path.basename(file)}`);
        } else if (kind < 0.8) {
          const name = `${['0', '1', '2', '3'][Math.floor(random() * 4)]}0000000-0000-4000-8000-00000000000${step % 10}.jsonl`;
          const dir = path.dirname(pick(files.filter((f) => !f.includes('subagents'))));
          fs.writeFileSync(path.join(dir, name), pick(sources));
          ops.push(`new ${name}`);
        } else if (kind < 0.9) {
          // Truncate to a shorter prefix (not an append).
          const bytes = fs.readFileSync(file);
          fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length * random())));
          ops.push(`truncate ${path.basename(file)}`);
        } else {
          ops.push('nothing');
        }
        const args = ['check', '--format', 'json', root];
        const { plain, cached } = await both(box, args);
        expect({ ops, stdout: cached.stdout, code: cached.code }).toEqual({ ops, stdout: plain.stdout, code: plain.code });
        expect(cached.stderr).toBe(plain.stderr);
        // A second cached run indexes nothing (every folder comes from the cache), and still agrees.
        const built = vi.spyOn(SessionIndex, 'build');
        const again = await run([...args, '--cache'], { env: box.env, cwd: box.root });
        expect(again.stdout).toBe(plain.stdout);
        expect(built).not.toHaveBeenCalled();
        built.mockRestore();
        // sessions: the same rows, and the same notes.
        const rows = await both(box, ['sessions', '--format', 'json', root]);
        expect({ ops, stdout: rows.cached.stdout, stderr: rows.cached.stderr, code: rows.cached.code }).toEqual({
          ops,
          stdout: rows.plain.stdout,
          stderr: rows.plain.stderr,
          code: rows.plain.code,
        });
        const indexed = vi.spyOn(SessionIndex, 'build');
        const rowsAgain = await run(['sessions', '--format', 'json', root, '--cache'], { env: box.env, cwd: box.root });
        expect(rowsAgain.stdout).toBe(rows.plain.stdout);
        expect(indexed).not.toHaveBeenCalled();
        indexed.mockRestore();
      }
      const cacheDir = path.join(box.cclintHome, 'cache');
      expect(fs.statSync(cacheDir).mode & 0o777).toBe(0o700);
      expect(fs.readdirSync(cacheDir).some((name) => name.startsWith('index-'))).toBe(keptIndexes);
      for (const name of fs.readdirSync(cacheDir)) {
        expect(name.endsWith('.jsonl')).toBe(false);
        expect(fs.statSync(path.join(cacheDir, name)).mode & 0o777).toBe(0o600);
      }
    });
  }

  it('agrees with a run without it on worker threads too (the built binary)', () => {
    const { box, root } = projects();
    const cli = path.join(repositoryRoot, 'dist', 'cli.js');
    const cclint = (...args: string[]) =>
      spawnSync(process.execPath, [cli, 'check', '--format', 'json', root, ...args], {
        cwd: box.root,
        env: { ...box.env, CCLINT_THREADS: '2' },
        encoding: 'utf8',
      });
    const plain = cclint();
    expect(cclint('--cache').stdout).toBe(plain.stdout);
    expect(cclint('--cache').stdout).toBe(plain.stdout);
    const session = jsonlFiles(path.join(root, '-home-dev-webapp'))[0] as string;
    fs.appendFileSync(session, fs.readFileSync(session, 'utf8').split('\n')[2] + '\n');
    const grown = cclint();
    expect(grown.stdout).not.toBe(plain.stdout);
    expect(cclint('--cache').stdout).toBe(grown.stdout);
    expect(cclint('--cache').stdout).toBe(grown.stdout);
    expect(fs.readdirSync(path.join(box.cclintHome, 'cache')).length).toBe(2);
  });

  it('keeps one entry per project folder: a file named alone, then its folder, then the file again', async () => {
    const { box, root } = projects();
    const folder = path.join(root, '-home-dev-team');
    const file = jsonlFiles(folder).find((f) => f.includes('subagents')) as string;
    for (const target of [file, folder, file, folder, root, file]) {
      const args = ['check', '--format', 'json', target];
      const { plain, cached } = await both(box, args);
      expect({ target, out: cached.stdout, code: cached.code }).toEqual({ target, out: plain.stdout, code: plain.code });
      expect(cached.stderr).toBe(plain.stderr);
    }
  });

  it('gives the same stylish report from another working folder', async () => {
    const { box, root } = projects();
    const elsewhere = path.join(box.root, 'elsewhere');
    fs.mkdirSync(elsewhere);
    const plain = await run(['check', root], { env: box.env, cwd: elsewhere });
    await run(['check', '--cache', root], { env: box.env, cwd: box.root });
    const cached = await run(['check', '--cache', root], { env: box.env, cwd: elsewhere });
    expect(cached.stdout).toBe(plain.stdout);
  });

  it('ignores a corrupt cache with a warning, and writes it again', async () => {
    const { box, root } = projects();
    const plain = await run(['check', '--format', 'json', root], { env: box.env, cwd: box.root });
    await run(['check', '--format', 'json', '--cache', root], { env: box.env, cwd: box.root });
    const cacheDir = path.join(box.cclintHome, 'cache');
    const entries = fs.readdirSync(cacheDir);
    expect(entries.length).toBe(2);
    const victim = path.join(cacheDir, entries[0] as string);
    const bytes = fs.readFileSync(victim);
    bytes[bytes.length - 10] = (bytes[bytes.length - 10] as number) ^ 0xff; // a flipped byte in the payload
    fs.writeFileSync(victim, bytes);
    const corrupt = await run(['check', '--format', 'json', '--cache', root], { env: box.env, cwd: box.root });
    expect(corrupt.stdout).toBe(plain.stdout);
    expect(corrupt.stderr).toContain('is corrupt (checksum mismatch); ignored and written again');
    const healed = await run(['check', '--format', 'json', '--cache', root], { env: box.env, cwd: box.root });
    expect(healed.stdout).toBe(plain.stdout);
    expect(healed.stderr).not.toContain('corrupt');
    fs.writeFileSync(victim, 'not a cache');
    const garbage = await run(['check', '--format', 'json', '--cache', root], { env: box.env, cwd: box.root });
    expect(garbage.stdout).toBe(plain.stdout);
    expect(garbage.stderr).toContain('is corrupt (not a cclint cache file)');
    fs.rmSync(cacheDir, { recursive: true });
    const deleted = await run(['check', '--format', 'json', '--cache', root], { env: box.env, cwd: box.root });
    expect(deleted.stdout).toBe(plain.stdout);
    expect(deleted.stderr).toBe('');
  });

  it('drops entries of another shape from a file whose checksum holds (hand-made), and says what the run without it says', async () => {
    const { box, root } = projects();
    const args = ['check', '--format', 'json', root];
    const plain = await run(args, { env: box.env, cwd: box.root });
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    const cacheDir = path.join(box.cclintHome, 'cache');
    for (const name of fs.readdirSync(cacheDir)) {
      const file = path.join(cacheDir, name);
      const bytes = fs.readFileSync(file);
      const headerEnd = bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1);
      const { stamp } = JSON.parse(bytes.toString('utf8', bytes.indexOf(0x0a) + 1, headerEnd)) as { stamp: string };
      const forged = v8.serialize({ groups: { a: { files: null }, b: null, c: 7 }, folders: { k: { key: null } } });
      const header = JSON.stringify({ stamp, sha256: createHash('sha256').update(forged).digest('hex'), length: forged.length });
      fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, bytes.indexOf(0x0a) + 1), Buffer.from(`${header}\n`), forged]));
    }
    const cached = await run([...args, '--cache'], { env: box.env, cwd: box.root });
    expect({ stdout: cached.stdout, stderr: cached.stderr, code: cached.code }).toEqual({ stdout: plain.stdout, stderr: plain.stderr, code: plain.code });
  });

  it('is not used across configurations: other severities are a miss', async () => {
    const { box, root } = projects();
    await run(['check', '--format', 'json', '--cache', root], { env: box.env, cwd: box.root });
    const plain = await run(['check', '--format', 'json', '--rule', 'phantom-parent=warning', root], { env: box.env, cwd: box.root });
    const cached = await run(['check', '--format', 'json', '--rule', 'phantom-parent=warning', '--cache', root], { env: box.env, cwd: box.root });
    expect(cached.stdout).toBe(plain.stdout);
  });

  it('refuses to keep the cache inside the projects root (exit 2)', async () => {
    const { box, root } = projects();
    const r = await run(['check', '--cache', root], { env: { ...box.env, CCLINT_HOME: path.join(root, 'state') }, cwd: box.root });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('refusing to keep the cache at');
    expect(fs.existsSync(path.join(root, 'state'))).toBe(false);
    // Nor inside a folder being read, for sessions too.
    const elsewhere = path.join(box.root, 'elsewhere');
    copyTree(path.join(root, '-home-dev-webapp'), path.join(elsewhere, '-p'));
    const inside = await run(['sessions', '--cache', elsewhere], { env: { ...box.env, CCLINT_HOME: path.join(elsewhere, '.cclint') }, cwd: box.root });
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain(`it is inside ${elsewhere}`);
    expect(fs.existsSync(path.join(elsewhere, '.cclint'))).toBe(false);
  });

  it('deletes, when it writes an entry, the entries of project folders that are gone or of another build, and their temporary files left an hour ago', async () => {
    const { box, root } = projects();
    const args = ['check', '--format', 'json', root];
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    const cacheDir = path.join(box.cclintHome, 'cache');
    const names = (): string[] => fs.readdirSync(cacheDir).sort();
    const headerOf = (name: string): Record<string, unknown> => {
      const text = fs.readFileSync(path.join(cacheDir, name), 'latin1');
      return JSON.parse(text.slice(text.indexOf('\n') + 1, text.indexOf('\n', text.indexOf('\n') + 1))) as Record<string, unknown>;
    };
    const entries = names().filter((n) => n.startsWith('check-'));
    // One entry per project folder, whose header names it.
    const folders = fs.readdirSync(root).map((d) => path.join(root, d));
    expect(entries.map((n) => headerOf(n).folder).sort()).toEqual(folders.map((f) => fs.realpathSync(f)).sort());
    const entryOf = (folder: string): string => entries.find((n) => headerOf(n).folder === fs.realpathSync(folder)) as string;
    const [growing, removed] = [path.join(root, '-home-dev-webapp'), folders.find((f) => !f.endsWith('-home-dev-webapp')) as string];
    const removedEntry = entryOf(removed);
    const copyWith = (name: string, change: (header: string) => string): string => {
      const text = fs.readFileSync(path.join(cacheDir, entryOf(growing)), 'latin1');
      const cut = text.indexOf('\n', text.indexOf('\n') + 1);
      fs.writeFileSync(path.join(cacheDir, name), Buffer.from(change(text.slice(0, cut)) + text.slice(cut), 'latin1'));
      return name;
    };
    const otherBuild = copyWith(`check-${'1'.repeat(40)}.bin`, (h) => h.replace(/"build":"[0-9a-f]+"/, '"build":"older"'));
    const olderFormat = copyWith(`check-${'2'.repeat(40)}.bin`, (h) => h.replace(/"build":"[0-9a-f]+",/, ''));
    const goneFolder = copyWith(`sessions-${'3'.repeat(40)}.bin`, (h) => h.replace(/"folder":"[^"]+"/, `"folder":${JSON.stringify(path.join(box.root, 'gone'))}`));
    const otherRules = copyWith(`check-${'4'.repeat(40)}.bin`, (h) => h.replace(/"stamp":"[0-9a-f]+"/, '"stamp":"other-rules"'));
    const abandoned = `check-${'5'.repeat(40)}.bin.2837419`;
    const writing = `check-${'6'.repeat(40)}.bin.9912`;
    fs.writeFileSync(path.join(cacheDir, abandoned), 'partial');
    fs.writeFileSync(path.join(cacheDir, writing), 'partial');
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    fs.utimesSync(path.join(cacheDir, abandoned), hourAgo, hourAgo);
    fs.writeFileSync(path.join(cacheDir, 'notes.txt'), 'not the cache');
    fs.rmSync(removed, { recursive: true });
    const all = names();
    // Nothing written (the other folders are as they were): nothing pruned.
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    expect(names()).toEqual(all);
    // An entry written: the folder that is gone, the other build and the older format go; the other configuration, a temporary file being written and what is not the cache stay.
    const session = jsonlFiles(growing)[0] as string;
    fs.appendFileSync(session, `${fs.readFileSync(session, 'utf8').split('\n')[2]}\n`);
    const after = await run([...args, '--cache'], { env: box.env, cwd: box.root });
    expect(after.stdout).toBe((await run(args, { env: box.env, cwd: box.root })).stdout);
    const gone = [removedEntry, otherBuild, olderFormat, goneFolder, abandoned];
    expect(names()).toEqual(all.filter((n) => !gone.includes(n)));
    expect(names()).toEqual(expect.arrayContaining([otherRules, writing, 'notes.txt']));
  });
});

/** One byte of `file` changed, its size and modification time kept (its change time moves). */
function flipByteKeepingTimes(file: string): void {
  const stat = fs.statSync(file);
  const bytes = fs.readFileSync(file);
  bytes[5] = (bytes[5] as number) ^ 1;
  fs.writeFileSync(file, bytes);
  fs.utimesSync(file, stat.atime, stat.mtime);
}

describe('the folder cache', () => {
  const config = (dir: string): CacheConfig => ({ dir, stamp: 'test', racyMs: 0, namespace: 'check', checkpointBytes: Number.POSITIVE_INFINITY, run: 'test' });
  /** Outcomes in file order: the cache gives its groups first, a run sorts its results anyway. */
  const inOrder = (outcomes: unknown[]): string =>
    JSON.stringify(
      [...(outcomes as Array<{ results: Array<{ filePath: string }> }>)].sort((a, b) =>
        (a.results[0]?.filePath ?? '').localeCompare(b.results[0]?.filePath ?? ''),
      ),
    );

  function folder(root: string) {
    const files = jsonlFiles(root);
    const infos = files.map((f) => classifyPath(f, root));
    const groups = infos.map((info) => ({ projectDir: info.projectDir, sessionId: info.layoutSessionId, files: [info] }));
    return { files, groups, projectFiles: new Map([[root, files]]) };
  }

  it('does not open a transcript of a folder in which nothing changed', () => {
    const { box, root } = projects();
    const dir = path.join(root, '-home-dev-webapp');
    const { groups, projectFiles } = folder(dir);
    const options = { rules: RULES, severities: new Map(), only: undefined };
    const outcomes: unknown[] = [];
    const lint: FolderLinter = (some, indexer, emit, partial, uuids) => lintFolder(some, projectFiles, options, emit, indexer, { partial, uuids });
    lintFolderCached(config(path.join(box.root, 'c')), groups, projectFiles, (o) => outcomes.push(o), lint);
    const opened = vi.spyOn(fs, 'openSync');
    const again: unknown[] = [];
    lintFolderCached(config(path.join(box.root, 'c')), groups, projectFiles, (o) => again.push(o), lint);
    expect(opened.mock.calls.filter(([p]) => String(p).endsWith('.jsonl'))).toEqual([]);
    // The same outcomes, fixes without their edits (closures over an index).
    expect(inOrder(again)).toBe(inOrder(outcomes));
    expect(again.length).toBe(groups.length);
  });

  it('keeps no fix edits (closures over a whole session index) in the outcomes of the groups it reads', () => {
    const { box, root } = projects();
    const dir = path.join(root, '-home-dev-webapp');
    const { groups, projectFiles } = folder(dir);
    const options = { rules: RULES, severities: new Map(), only: undefined };
    const linted: Array<{ results: FileResultLike[] }> = [];
    const emitted: Array<{ results: FileResultLike[] }> = [];
    const lint: FolderLinter = (some, indexer, emit, partial, uuids) =>
      lintFolder(some, projectFiles, options, (outcome, info) => {
        linted.push(outcome);
        emit(outcome, info);
      }, indexer, { partial, uuids });
    lintFolderCached(config(path.join(box.root, 'c')), groups, projectFiles, (o) => emitted.push(o as never), lint);
    const fixes = (outcomes: Array<{ results: FileResultLike[] }>) => outcomes.flatMap((o) => o.results.flatMap((r) => r.findings.flatMap((f) => (f.fix === undefined ? [] : [f.fix]))));
    // The linter gives edits (the demo has fixable findings); what the folder's run keeps and emits has none.
    expect(fixes(linted).some((f) => typeof f.edits === 'function')).toBe(true);
    expect(fixes(emitted).length).toBe(fixes(linted).length);
    expect(fixes(emitted).filter((f) => 'edits' in f)).toEqual([]);
  });

  it('stores the index of a session that had settled, hashed on another thread, unless the session changed while it was read', () => {
    const { box, root } = projects();
    const dir = path.join(root, '-home-dev-webapp');
    const { groups, projectFiles } = folder(dir);
    const options = { rules: RULES, severities: new Map(), only: undefined };
    const lint: FolderLinter = (some, indexer, emit, partial, uuids) => lintFolder(some, projectFiles, options, emit, indexer, { partial, uuids });
    const session = jsonlFiles(dir).find((f) => fs.readFileSync(f).at(-1) === 0x0a) as string;
    const stored = (cacheDir: string): boolean =>
      fs.existsSync(path.join(cacheDir, `index-${createHash('sha256').update(session).digest('hex').slice(0, 40)}.bin`));
    const cached = (cacheDir: string): unknown[] => {
      const out: unknown[] = [];
      // Every session keeps its index; with no racy window, every file has settled.
      lintFolderCached({ ...config(cacheDir), checkpointBytes: 0 }, groups, projectFiles, (o) => out.push(o), lint);
      return out;
    };
    const plain = (): unknown[] => {
      const out: unknown[] = [];
      lintFolder(groups, projectFiles, options, (o) => out.push({ results: o.results.map(plainResult), failures: o.failures }));
      return out;
    };
    const settledDir = path.join(box.root, 'settled');
    cached(settledDir);
    expect(stored(settledDir)).toBe(true);
    const size = fs.statSync(session).size;
    fs.appendFileSync(session, `${fs.readFileSync(session, 'utf8').split('\n')[2]}\n`);
    const built = vi.spyOn(SessionIndex, 'build');
    const grown = cached(settledDir);
    expect(built.mock.calls.findLast(([file]) => file.path === session)?.[3]?.stats.byteLength).toBe(size);
    built.mockRestore();
    expect(inOrder(grown)).toBe(inOrder(plain()));
    // A line appended while the session is read: its times move, and the digest taken beside the read is not trusted.
    const original = SessionIndex.build.bind(SessionIndex);
    const appending = vi.spyOn(SessionIndex, 'build').mockImplementation((file, ...rest) => {
      const index = original(file, ...rest);
      if (file.path === session) fs.appendFileSync(session, `${fs.readFileSync(session, 'utf8').split('\n')[3]}\n`);
      return index;
    });
    const racedDir = path.join(box.root, 'raced');
    cached(racedDir);
    appending.mockRestore();
    expect(stored(racedDir)).toBe(false);
    expect(fs.readdirSync(racedDir).some((n) => n.startsWith('index-'))).toBe(true);
  });

  it('keeps the entries of each command apart: check, then sessions, then check again reads nothing', () => {
    const { box, root } = projects();
    const dir = path.join(root, '-home-dev-webapp');
    const { groups, projectFiles } = folder(dir);
    const cacheDir = path.join(box.root, 'c');
    const run = (namespace: string, facts: boolean): unknown[] => {
      const options = { rules: RULES, severities: new Map(), only: undefined, facts };
      const out: unknown[] = [];
      lintFolderCached({ ...config(cacheDir), namespace }, groups, projectFiles, (o) => out.push(o), (some, indexer, emit, partial, uuids) =>
        lintFolder(some, projectFiles, options, emit, indexer, { partial, uuids }),
      );
      return out;
    };
    const checked = run('check', false);
    run('sessions', true);
    expect(fs.readdirSync(cacheDir).filter((f) => f.endsWith('.bin')).length).toBe(2);
    const opened = vi.spyOn(fs, 'openSync');
    const again = run('check', false);
    expect(opened.mock.calls.filter(([p]) => String(p).endsWith('.jsonl'))).toEqual([]);
    expect(inOrder(again)).toBe(inOrder(checked));
  });

  it('misses after a same-size rewrite that restores the modification time (the change time moved)', () => {
    const { box, root } = projects();
    const dir = path.join(root, '-home-dev-webapp');
    const { files, projectFiles } = folder(dir);
    const c = config(path.join(box.root, 'c'));
    const victim = files[0] as string;
    const lookup = () => groupStore<string>(c, projectFiles, () => undefined, false);
    const first = lookup();
    const miss = first.lookup(dir, [victim]);
    expect(miss.hit).toBeUndefined();
    if (miss.hit === undefined) miss.store('value', false, new Map());
    first.save();
    expect(lookup().lookup(dir, [victim]).hit).toBe('value');
    // Later than the clock tick of the copy (with no racy window, a change in
    // the same tick is exactly what the cache could not see).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    flipByteKeepingTimes(victim);
    expect(lookup().lookup(dir, [victim]).hit).toBeUndefined();
  });

  it('keeps the hash of a file changed just before it was read, and checks it', () => {
    const { box, root } = projects();
    const dir = path.join(root, '-home-dev-webapp');
    const { files, projectFiles } = folder(dir);
    const c: CacheConfig = { dir: path.join(box.root, 'c'), stamp: 'test', racyMs: 60_000, namespace: 'x', checkpointBytes: Number.POSITIVE_INFINITY, run: 'test' };
    const victim = files[0] as string;
    const store = () => groupStore<number>(c, projectFiles, () => undefined, false);
    const first = store();
    const miss = first.lookup(dir, [victim]);
    if (miss.hit !== undefined) throw new Error('unexpected hit');
    expect(miss.racy).toEqual([victim]);
    // Without reading every racy file through the indexer, nothing is stored.
    miss.store(1, false, new Map());
    first.save();
    expect(store().lookup(dir, [victim]).hit).toBeUndefined();
    storeAfterReading(store(), dir, victim, root, 2);
    expect(store().lookup(dir, [victim]).hit).toBe(2);
    // The same times but other bytes: the kept hash tells.
    flipByteKeepingTimes(victim);
    expect(store().lookup(dir, [victim]).hit).toBeUndefined();
  });

  it('hashes a file stored while it was racy once it has settled, then trusts its times again', async () => {
    const { box, root } = projects();
    const dir = path.join(root, '-home-dev-webapp');
    const { files, projectFiles } = folder(dir);
    const racy: CacheConfig = { dir: path.join(box.root, 'c'), stamp: 'test', racyMs: 60_000, namespace: 'x', checkpointBytes: Number.POSITIVE_INFINITY, run: 'test' };
    const victim = files[0] as string;
    storeAfterReading(groupStore<number>(racy, projectFiles, () => undefined, false), dir, victim, root, 1);
    // Settled: no racy window any more.
    const settledStore = () => groupStore<number>({ ...racy, racyMs: 0 }, projectFiles, () => undefined, false);
    const once = settledStore();
    expect(await opensOf([victim], () => once.lookup(dir, [victim]).hit)).toEqual({ value: 1, opens: 1 });
    once.save();
    expect(await opensOf([victim], () => settledStore().lookup(dir, [victim]).hit)).toEqual({ value: 1, opens: 0 });
  });

  it('a folder in which nothing changed but a file stored while racy has settled: hashed on the next run, not on the one after', async () => {
    const { box, root } = projects();
    const dir = path.join(root, '-home-dev-webapp');
    const { files, groups, projectFiles } = folder(dir);
    const racy: CacheConfig = { dir: path.join(box.root, 'c'), stamp: 'test', racyMs: 60_000, namespace: 'x', checkpointBytes: Number.POSITIVE_INFINITY, run: 'test' };
    const options = { rules: RULES, severities: new Map(), only: undefined };
    const lint: FolderLinter = (some, indexer, emit, partial, uuids) => lintFolder(some, projectFiles, options, emit, indexer, { partial, uuids });
    lintFolderCached(racy, groups, projectFiles, () => undefined, lint);
    const settled: CacheConfig = { ...racy, racyMs: 0 };
    const nextRun = () => opensOf(files, () => cachedOutcomes(settled, groups, projectFiles)?.length);
    expect(await nextRun()).toEqual({ value: groups.length, opens: files.length });
    expect(await nextRun()).toEqual({ value: groups.length, opens: 0 });
  });
});

describe('check --cache, per session group', () => {
  const indexedAfter = async (box: Sandbox, args: string[]): Promise<{ stdout: string; indexed: string[] }> => {
    const built = vi.spyOn(SessionIndex, 'build');
    const r = await run(args, { env: box.env, cwd: box.root });
    const indexed = built.mock.calls.map(([file]) => path.basename(file.path)).sort();
    built.mockRestore();
    return { stdout: r.stdout, indexed };
  };

  it('opens a session that just grew as often as a run without the cache does (a live session is hashed as it is read)', async () => {
    const { box, root } = projects();
    const args = ['check', '--format', 'json', root];
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    const session = jsonlFiles(path.join(root, '-home-dev-webapp'))[0] as string;
    fs.appendFileSync(session, `${fs.readFileSync(session, 'utf8').split('\n')[2]}\n`); // racy: changed just now
    const opens = async (withCache: boolean): Promise<number> =>
      (await opensOf([session], () => run(withCache ? [...args, '--cache'] : args, { env: box.env, cwd: box.root }))).opens;
    const cached = await opens(true);
    expect(cached).toBeGreaterThan(0);
    expect(cached).toBe(await opens(false));
  });

  it('reads each file once when it fills the cache, sessions with phantom parents included', async () => {
    const { box, root } = projects();
    const first = await indexedAfter(box, ['check', '--format', 'json', root, '--cache']);
    expect(first.indexed).toEqual(jsonlFiles(root).map((f) => path.basename(f)).sort());
  });

  it('reads only the session that grew: the other sessions of its folder come from the cache', async () => {
    const { box, root } = projects();
    const args = ['check', '--format', 'json', root];
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    const session = jsonlFiles(path.join(root, '-home-dev-webapp'))[0] as string;
    fs.appendFileSync(session, `${fs.readFileSync(session, 'utf8').split('\n')[2]}\n`);
    const second = await indexedAfter(box, [...args, '--cache']);
    expect(second.indexed).toEqual([path.basename(session)]);
    expect(second.stdout).toBe((await run(args, { env: box.env, cwd: box.root })).stdout);
  });

  it('keeps a session that looks parents up in other files while no file that changed holds one, and reads the folder again when one does', async () => {
    const { box, root } = projects();
    const dir = path.join(root, '-home-dev-webapp');
    const [grown, parentFile] = jsonlFiles(dir) as [string, string];
    // A continuation whose first row names a row of another session of the folder.
    const parent = /"uuid":"([^"]+)"/.exec(fs.readFileSync(parentFile, 'utf8').split('\n')[1] as string)?.[1] as string;
    const lines = fs.readFileSync(grown, 'utf8').split('\n').filter((l) => l.includes('"uuid"')).slice(0, 3);
    const continued = path.join(dir, '0c0c0c0c-0000-4000-8000-000000000001.jsonl');
    fs.writeFileSync(continued, `${lines.map((l, i) => (i === 0 ? l.replace(/"parentUuid":("[^"]*"|null)/, `"parentUuid":"${parent}"`) : l)).join('\n')}\n`);
    const args = ['check', '--format', 'json', root];
    const agrees = async (indexed: string[]): Promise<void> => {
      const cached = await indexedAfter(box, [...args, '--cache']);
      expect(cached.indexed).toEqual(indexed.map((f) => path.basename(f)).sort());
      expect(cached.stdout).toBe((await run(args, { env: box.env, cwd: box.root })).stdout);
    };
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    await agrees([]);
    // Another session grows, without the continuation's parent: only it is read.
    fs.appendFileSync(grown, `${lines[2]}\n`);
    await agrees([grown]);
    // The session the parent is in grows: where the parent is may have changed, so the folder is read.
    fs.appendFileSync(parentFile, `${fs.readFileSync(parentFile, 'utf8').split('\n')[2]}\n`);
    await agrees(jsonlFiles(dir));
    // A session grows with a row holding a uuid another session named and did not find: read the folder.
    const everywhere = new Set(jsonlFiles(dir).flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/"uuid":"([^"]+)"/g)].map((m) => m[1])));
    const phantom = jsonlFiles(dir)
      .flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/"parentUuid":"([^"]+)"/g)].map((m) => m[1] as string))
      .find((u) => !everywhere.has(u)) as string;
    expect(phantom).toBeDefined();
    fs.appendFileSync(grown, `${(lines[2] as string).replace(/"uuid":"[^"]+"/, `"uuid":"${phantom}"`)}\n`);
    // (Only reading the grown session tells: it is read, then the whole folder.)
    await agrees([grown, ...jsonlFiles(dir)]);
    await agrees([]);
  });
});

describe('check --cache, a session that only grew', () => {
  /** The project root, the session that grows, and an environment in which every session keeps its index. */
  const grownSetup = () => {
    const { box, root } = projects();
    box.env.CCLINT_CACHE_INDEX_MB = '0';
    const session = jsonlFiles(path.join(root, '-home-dev-webapp'))[0] as string;
    return { box, root, session, args: ['check', '--format', 'json', root] };
  };
  /**
   * Where the build of `session` whose index the run used (its last) started
   * reading, and what the run printed. (A session whose first bytes turn out
   * to have changed is read on from its stored index while they are hashed,
   * then again from its start.)
   */
  const startOf = async (box: Sandbox, args: string[], session: string): Promise<{ start: number | undefined; stdout: string; stderr: string }> => {
    const built = vi.spyOn(SessionIndex, 'build');
    const r = await run([...args, '--cache'], { env: box.env, cwd: box.root });
    const call = built.mock.calls.findLast(([file]) => file.path === session);
    built.mockRestore();
    return { start: call === undefined ? undefined : (call[3]?.stats.byteLength ?? 0), stdout: r.stdout, stderr: r.stderr };
  };
  const appendLine = (session: string): void => fs.appendFileSync(session, `${fs.readFileSync(session, 'utf8').split('\n')[2]}\n`);

  it('reads it from where its last complete line ended, and says what a run without the cache says', async () => {
    const { box, session, args } = grownSetup();
    // Long enough that one more line is less than a sixteenth of it.
    const third = fs.readFileSync(session, 'utf8').split('\n')[2] as string;
    fs.appendFileSync(session, `${third}\n`.repeat(40));
    const filled = await startOf(box, args, session);
    expect(filled.start).toBe(0);
    const before = fs.statSync(session).size;
    appendLine(session);
    const grown = await startOf(box, args, session);
    expect(grown.start).toBe(before);
    expect(grown.stdout).toBe((await run(args, { env: box.env, cwd: box.root })).stdout);
    // Grown by less than a sixteenth: the stored index is kept as it was, and read from again.
    appendLine(session);
    expect((await startOf(box, args, session)).start).toBe(before);
  });

  it('reads it from the start when a byte before its old end changed, or it was cut shorter, or replaced', async () => {
    const { box, session, args } = grownSetup();
    await startOf(box, args, session);
    flipByteKeepingTimes(session);
    appendLine(session);
    const rewritten = await startOf(box, args, session);
    expect(rewritten.start).toBe(0);
    expect(rewritten.stdout).toBe((await run(args, { env: box.env, cwd: box.root })).stdout);
    fs.truncateSync(session, fs.statSync(session).size - 10);
    const cut = await startOf(box, args, session);
    expect(cut.start).toBe(0);
    expect(cut.stdout).toBe((await run(args, { env: box.env, cwd: box.root })).stdout);
    // The same bytes and more, in a new file renamed over it (another inode).
    const copy = `${session}.new`;
    fs.writeFileSync(copy, `${fs.readFileSync(session, 'utf8')}${fs.readFileSync(session, 'utf8').split('\n')[3]}\n`);
    fs.renameSync(copy, session);
    expect((await startOf(box, args, session)).start).toBe(0);
  });

  it('ignores a corrupt stored index with a warning, reads the session from the start, and stores it again', async () => {
    const { box, root, session, args } = grownSetup();
    await startOf(box, args, session);
    const cacheDir = path.join(box.cclintHome, 'cache');
    const stored = fs.readdirSync(cacheDir).filter((n) => n.startsWith('index-'));
    // One per session that ends with a complete line (a torn last line may yet be completed: that session is read whole).
    expect(stored.length).toBe(jsonlFiles(root).filter((f) => fs.readFileSync(f).at(-1) === 0x0a).length);
    expect(stored.length).toBeLessThan(jsonlFiles(root).length);
    for (const name of stored) {
      const file = path.join(cacheDir, name);
      const bytes = fs.readFileSync(file);
      bytes[bytes.length - 10] = (bytes[bytes.length - 10] as number) ^ 0xff;
      fs.writeFileSync(file, bytes);
    }
    appendLine(session);
    const corrupt = await startOf(box, args, session);
    expect(corrupt.start).toBe(0);
    expect(corrupt.stderr).toMatch(/cache file .*index-[0-9a-f]+\.bin is corrupt \(checksum mismatch\); ignored and written again/);
    expect(corrupt.stdout).toBe((await run(args, { env: box.env, cwd: box.root })).stdout);
    const before = fs.statSync(session).size;
    appendLine(session);
    const healed = await startOf(box, args, session);
    expect(healed.start).toBe(before);
    expect(healed.stderr).not.toContain('corrupt');
  });

  it('deletes, when it stores an index, the stored indexes of sessions that are gone or of another version, and temporary files left an hour ago', async () => {
    const { box, root, session, args } = grownSetup();
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    const cacheDir = path.join(box.cclintHome, 'cache');
    const indexes = (): string[] => fs.readdirSync(cacheDir).filter((n) => n.startsWith('index-')).sort();
    const before = indexes();
    const gone = jsonlFiles(root).find((f) => f !== session && fs.readFileSync(f).at(-1) === 0x0a) as string;
    fs.rmSync(gone);
    // Of another version: the same file under another name, its stamp changed.
    const other = path.join(cacheDir, `index-${'0'.repeat(40)}.bin`);
    const first = fs.readFileSync(path.join(cacheDir, before[0] as string));
    fs.writeFileSync(other, Buffer.from(first.toString('latin1').replace(/"stamp":"[0-9a-f]+"/, '"stamp":"older"'), 'latin1'));
    const abandoned = path.join(cacheDir, `index-${'1'.repeat(40)}.bin.123.0.abcd.tmp`);
    const writing = path.join(cacheDir, `index-${'2'.repeat(40)}.bin.124.0.abcd.tmp`);
    fs.writeFileSync(abandoned, 'partial');
    fs.writeFileSync(writing, 'partial');
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    fs.utimesSync(abandoned, hourAgo, hourAgo);
    // Nothing stored yet: nothing pruned.
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    expect(indexes().length).toBe(before.length + 3);
    // A session read from its start stores its index again.
    flipByteKeepingTimes(session);
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    expect(indexes()).toEqual([...before.filter((n) => fs.existsSync(path.join(cacheDir, n))), path.basename(writing)].sort());
    expect(indexes().length).toBe(before.length);
    expect(fs.existsSync(other)).toBe(false);
    expect(fs.existsSync(abandoned)).toBe(false);
  });

  it('stores no index that disagrees with its session while another process appends to it (the built binary, real processes)', async () => {
    const { box, session, args } = grownSetup();
    const cli = path.join(repositoryRoot, 'dist', 'cli.js');
    const env = { ...box.env, CCLINT_THREADS: '1' };
    const cclint = (...more: string[]) => spawnSync(process.execPath, [cli, ...args, ...more], { cwd: box.root, env, encoding: 'utf8' });
    cclint('--cache');
    // Claude Code's way: whole lines appended, one write each, every few milliseconds, for about two seconds.
    const lines = fs.readFileSync(session, 'utf8').split('\n').filter((l) => l !== '');
    const appender = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs'); const lines = ${JSON.stringify(lines)}; let i = 0;
         const t = setInterval(() => { fs.appendFileSync(${JSON.stringify(session)}, lines[i++ % lines.length] + '\\n'); }, 3);
         setTimeout(() => { clearInterval(t); process.exit(0); }, 2000);`,
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise<void>((resolve) => appender.on('exit', () => resolve()));
    for (let i = 0; i < 4; i++) expect(cclint('--cache').status).not.toBe(2);
    await exited;
    const plain = cclint();
    expect(cclint('--cache').stdout).toBe(plain.stdout);
    expect(cclint('--cache').stdout).toBe(plain.stdout);
    // And read on from the index stored last.
    fs.appendFileSync(session, `${lines[1]}\n`);
    expect(cclint('--cache').stdout).toBe(cclint().stdout);
  });

  it('keeps no index of a session under CCLINT_CACHE_INDEX_MB, and refuses a value that is not a number of megabytes (exit 2)', async () => {
    const { box, root, args } = grownSetup();
    box.env.CCLINT_CACHE_INDEX_MB = '64';
    await run([...args, '--cache'], { env: box.env, cwd: box.root });
    expect(fs.readdirSync(path.join(box.cclintHome, 'cache')).filter((n) => n.startsWith('index-'))).toEqual([]);
    for (const bad of ['lots', '-1', '1e3']) {
      const r = await run(['check', '--cache', root], { env: { ...box.env, CCLINT_CACHE_INDEX_MB: bad }, cwd: box.root });
      expect({ bad, code: r.code }).toEqual({ bad, code: 2 });
      expect(r.stderr).toContain(`CCLINT_CACHE_INDEX_MB must be a number of megabytes (0 or more), not "${bad}"`);
    }
  });
});
