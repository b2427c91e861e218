/**
 * The package as a user gets it: `npm pack`, then `npm install -g` of the
 * tarball into an empty prefix, then `cclint` from that prefix's PATH. The
 * install runs without the network: the runtime dependencies, packed from
 * node_modules (the exact versions of package-lock.json), are served by a
 * throwaway registry on localhost. npm runs with empty user and global
 * configs and a fresh cache, so nothing of this machine's setup leaks in.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULES } from '../../src/rules/index.js';

const run = promisify(execFile);
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-package-'));
const prefix = path.join(tmp, 'prefix');
const bin = path.join(prefix, 'bin');

/** npm itself: the one running `npm test` when there is one, else the one on PATH. */
function npmCommand(args: readonly string[]): [string, string[]] {
  const cli = process.env.npm_execpath;
  return cli !== undefined && cli.endsWith('.js') ? [process.execPath, [cli, ...args]] : ['npm', [...args]];
}

function npmEnv(): NodeJS.ProcessEnv {
  const userConfig = path.join(tmp, 'user-npmrc');
  const globalConfig = path.join(tmp, 'global-npmrc');
  for (const file of [userConfig, globalConfig]) fs.writeFileSync(file, '');
  return {
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    HOME: path.join(tmp, 'home'),
    npm_config_userconfig: userConfig,
    npm_config_globalconfig: globalConfig,
    npm_config_cache: path.join(tmp, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
  };
}

async function npm(args: readonly string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  const [command, argv] = npmCommand(args);
  return run(command, argv, { cwd, env: npmEnv(), maxBuffer: 64 * 1024 * 1024 });
}

interface PackedFile {
  readonly filename: string;
  readonly files: ReadonlyArray<{ readonly path: string }>;
}

/** Packs a folder as it stands (no lifecycle scripts: dist/ is already built). */
async function pack(folder: string, into: string): Promise<PackedFile> {
  fs.mkdirSync(into, { recursive: true });
  const { stdout } = await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', into, folder], REPO);
  return (JSON.parse(stdout) as PackedFile[])[0] as PackedFile;
}

/** Serves a packument and tarball for every runtime dependency the lock file names. */
async function startRegistry(): Promise<{ url: string; close(): Promise<void> }> {
  const lock = JSON.parse(fs.readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string; dev?: boolean; dependencies?: Record<string, string> }>;
  };
  const tarballs = path.join(tmp, 'registry');
  const packuments = new Map<string, { name: string; versions: Record<string, unknown>; 'dist-tags': { latest: string } }>();
  let base = '';
  const entries = Object.entries(lock.packages).filter(([key, entry]) => key !== '' && entry.dev !== true);
  const packed = await Promise.all(entries.map(([key]) => pack(path.join(REPO, key), tarballs)));
  entries.forEach(([key, entry], i) => {
    const name = key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const version = entry.version as string;
    const file = (packed[i] as PackedFile).filename;
    const bytes = fs.readFileSync(path.join(tarballs, file));
    const packument = packuments.get(name) ?? { name, versions: {}, 'dist-tags': { latest: version } };
    packument.versions[version] = {
      name,
      version,
      dependencies: entry.dependencies ?? {},
      dist: {
        get tarball() {
          return `${base}/-/${file}`;
        },
        integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
      },
    };
    packuments.set(name, packument);
  });
  const server = http.createServer((request, response) => {
    const url = decodeURIComponent(request.url ?? '/');
    if (url.startsWith('/-/')) {
      const file = path.join(tarballs, path.basename(url));
      if (fs.existsSync(file)) {
        response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(fs.readFileSync(file));
        return;
      }
    }
    const packument = packuments.get(url.slice(1));
    if (packument === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: `${base}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function cclint(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = path.join(tmp, 'user');
  const env = {
    PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}`,
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    CCLINT_HOME: path.join(home, '.cclint'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
  };
  try {
    const { stdout, stderr } = await run('cclint', args, { cwd: REPO, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the packed package, installed globally', () => {
  let tarball: PackedFile;
  let install: { stdout: string; stderr: string };

  beforeAll(async () => {
    tarball = await pack(REPO, tmp);
    const registry = await startRegistry();
    try {
      install = await npm(['install', '--global', '--prefix', prefix, '--registry', registry.url, path.join(tmp, tarball.filename)], tmp);
    } finally {
      await registry.close();
    }
  }, 300_000);
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('holds the license, readme, changelog, built code, rule pages and config schema, and no source map', () => {
    const files = tarball.files.map((f) => f.path);
    expect(files).toEqual(
      expect.arrayContaining(['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json', 'dist/cli.js', 'schema/cclintrc.schema.json']),
    );
    expect(files).toEqual(expect.arrayContaining(RULES.map((r) => `docs/rules/${r.meta.id}.md`)));
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /^(src|test|fixtures|bench|scripts)\//.test(f))).toEqual([]);
  });

  it('installs without a warning', () => {
    expect(install.stderr).toBe('');
    expect(install.stdout).not.toMatch(/warn/i);
  });

  it('puts a working cclint on the PATH', async () => {
    const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
    const r = await cclint('--version');
    expect(r).toEqual({ code: 0, stdout: `${version.version}\n`, stderr: '' });
  });

  it('explains every rule', async () => {
    for (const { meta } of RULES) {
      const r = await cclint('explain', meta.id);
      expect(r.code, meta.id).toBe(0);
      expect(r.stdout).toBe(fs.readFileSync(path.join(REPO, 'docs', 'rules', `${meta.id}.md`), 'utf8'));
    }
  });

  it('checks a file', async () => {
    const broken = await cclint('check', '--format', 'json', 'fixtures/demo/-home-dev-webapp/b2fe508c-5391-4967-ad16-83d569d4f396.jsonl');
    expect(broken.code).toBe(1);
    expect((JSON.parse(broken.stdout) as { results: Array<{ messages: Array<{ ruleId: string }> }> }).results[0]?.messages.map((m) => m.ruleId)).toContain(
      'phantom-parent',
    );
    const healthy = await cclint('check', 'fixtures/demo/-home-dev-webapp/dde4dc22-3a88-480c-ae47-ba8fddb60f02.jsonl');
    expect(healthy.code).toBe(0);
  });
});
