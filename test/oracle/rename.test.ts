/**
 * `cclint rename` against Claude Code's own session listing: after a rename
 * the Agent SDK's `listSessions` (what Claude Code's tools read) returns the
 * new title, and after `cclint restore` the old one again. The SDK is
 * installed in this folder only by `npm run test:sdk`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { assistant, jsonl, user } from '../commands/fixture.js';
import { run, sandbox } from '../support/cli.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const box = sandbox();
afterAll(() => box.cleanup());

const SESSION = '5e550001-0000-4000-8000-000000000000';

function listed(): Array<{ sessionId: string; summary: string; customTitle: string | null }> {
  const stdout = execFileSync(process.execPath, [path.join(here, 'list.mjs'), box.configDir], {
    cwd: here,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  return JSON.parse(stdout) as Array<{ sessionId: string; summary: string; customTitle: string | null }>;
}

describe('cclint rename, read back by the Agent SDK', () => {
  it('listSessions returns the new title, and the old one after restore', async () => {
    const project = path.join(box.configDir, 'projects', '-home-u-proj');
    fs.mkdirSync(project, { recursive: true });
    const file = path.join(project, `${SESSION}.jsonl`);
    fs.writeFileSync(file, jsonl([user(1, null, 'first prompt'), assistant(2, 1, 'answer')]));
    const old = new Date(Date.now() - 3600_000);
    fs.utimesSync(file, old, old);
    expect(listed()).toEqual([{ sessionId: SESSION, summary: 'first prompt', customTitle: null }]);

    const r = await run(['rename', file, 'Login form: validation'], { env: box.env, cwd: box.root });
    expect(r.code).toBe(0);
    expect(listed()).toEqual([{ sessionId: SESSION, summary: 'Login form: validation', customTitle: 'Login form: validation' }]);

    const id = /restore (\S+)\n$/.exec(r.stdout)?.[1] as string;
    expect((await run(['restore', id], { env: box.env, cwd: box.root })).code).toBe(0);
    expect(listed()).toEqual([{ sessionId: SESSION, summary: 'first prompt', customTitle: null }]);
  });
});
