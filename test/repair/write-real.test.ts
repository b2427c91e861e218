/**
 * The real node port on a temp folder: the swap replaces the
 * file (a new inode), keeps its mode, owner and group, leaves no temp file
 * beside it, and `cclint restore <id>` puts the old bytes back through the CLI.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Io } from '../../src/io.js';
import { main } from '../../src/program.js';
import { nodeFs } from '../../src/repair/fs-port.js';
import { commitPlan } from '../../src/repair/write.js';
import type { CommitOptions } from '../../src/repair/options.js';
import { SID, relinkPlan } from './fixture.js';

let tmp: string;
let env: NodeJS.ProcessEnv;
let file: string;

function io(): Io & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: { write: (s) => void out.push(s), isTTY: false },
    stderr: { write: (s) => void err.push(s), isTTY: false },
    stdinIsTTY: false,
    env,
    cwd: tmp,
    now: Date.now,
  };
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-write-')));
  env = { HOME: path.join(tmp, 'home'), CLAUDE_CONFIG_DIR: path.join(tmp, 'home', '.claude'), CCLINT_HOME: path.join(tmp, 'state') };
  file = path.join(tmp, 'home', '.claude', 'projects', '-tmp-app', `${SID}.jsonl`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
});

/** A commit on the real file system, with the sandbox's state folders. */
function realOptions(): CommitOptions {
  return { fs: nodeFs(), env, cwd: tmp, decidedBy: 'yes', projectsRoot: path.join(env.CLAUDE_CONFIG_DIR ?? '', 'projects') };
}

afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('commitPlan on a real folder', () => {
  it('replaces the file atomically, keeps its mode, and leaves nothing beside it', () => {
    const plan = relinkPlan(file);
    fs.writeFileSync(file, plan.before, { mode: 0o640 });
    fs.chmodSync(file, 0o640);
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(file, old, old);
    const inodeBefore = fs.statSync(file).ino;

    const entry = commitPlan(plan, realOptions());

    expect(fs.readFileSync(file).equals(plan.after)).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o640);
    expect(fs.statSync(file).ino).not.toBe(inodeBefore);
    expect(fs.readdirSync(path.dirname(file))).toEqual([`${SID}.jsonl`]);
    expect(fs.readFileSync(entry.backup).equals(plan.before)).toBe(true);
    expect(fs.statSync(entry.backup).mode & 0o777).toBe(0o600);
    const audit = path.join(env.CCLINT_HOME ?? '', 'audit.jsonl');
    expect(fs.statSync(audit).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.join(env.CCLINT_HOME ?? '', 'inflight'))).toEqual([]);

    // And back, through the CLI.
    const run = io();
    return main(['restore', entry.id], run).then((code) => {
      expect(run.err.join('')).toBe('');
      expect(code).toBe(0);
      expect(run.out.join('')).toMatch(new RegExp(`^restored .*${SID}\\.jsonl to its content before fix ${entry.id} .*\\n$`));
      expect(run.out.join('').split('\n')).toHaveLength(2); // one line
      expect(fs.readFileSync(file).equals(plan.before)).toBe(true);
      expect(fs.statSync(file).mode & 0o777).toBe(0o640);
      expect(fs.readdirSync(path.dirname(file))).toEqual([`${SID}.jsonl`]);
    });
  });

  it('cclint restore with an unknown id exits 2', async () => {
    fs.mkdirSync(env.CCLINT_HOME ?? '', { recursive: true });
    fs.writeFileSync(path.join(env.CCLINT_HOME ?? '', 'audit.jsonl'), '');
    const run = io();
    expect(await main(['restore', 'no-such-id'], run)).toBe(2);
    expect(run.err.join('')).toMatch(/nothing to restore|no audit entry/);
  });
});

const isRoot = process.getuid?.() === 0;
const ownerOf = (f: string): { uid: number; gid: number; mode: number } => {
  const st = fs.statSync(f);
  return { uid: st.uid, gid: st.gid, mode: st.mode & 0o7777 };
};

describe('the owner and group of the file replaced', () => {
  it('writeNewFile gives the new file another owner as root, and goes on without it (EPERM) as anyone else', () => {
    const port = nodeFs();
    const own = path.join(tmp, 'own.tmp');
    port.writeNewFile(own, Buffer.from('x\n'), { mode: 0o600, owner: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 } });
    expect(ownerOf(own)).toEqual({ uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, mode: 0o600 });

    const given = path.join(tmp, 'given.tmp');
    port.writeNewFile(given, Buffer.from('x\n'), { mode: 0o640, owner: { uid: 1234, gid: 1234 } });
    expect(fs.readFileSync(given, 'utf8')).toBe('x\n');
    expect(ownerOf(given)).toEqual(
      isRoot ? { uid: 1234, gid: 1234, mode: 0o640 } : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, mode: 0o640 },
    );
  });

  /** Commits a fix to a file owned by uid:gid, mode 0600, then restores it through the CLI; the owner, group and mode stay. */
  async function fixAndRestoreKeep(uid: number, gid: number): Promise<void> {
    const plan = relinkPlan(file);
    fs.writeFileSync(file, plan.before);
    fs.chownSync(file, uid, gid);
    fs.chmodSync(file, 0o600);
    const old = new Date(Date.now() - 3_600_000);
    fs.utimesSync(file, old, old);

    const entry = commitPlan(plan, realOptions());
    expect(fs.readFileSync(file).equals(plan.after)).toBe(true);
    expect(ownerOf(file)).toEqual({ uid, gid, mode: 0o600 });
    expect(ownerOf(entry.backup)).toMatchObject({ mode: 0o600 }); // the backup is cclint's own

    const run = io();
    expect(await main(['restore', entry.id], run)).toBe(0);
    expect(run.err.join('')).toBe('');
    expect(fs.readFileSync(file).equals(plan.before)).toBe(true);
    expect(ownerOf(file)).toEqual({ uid, gid, mode: 0o600 });
    expect(fs.readdirSync(path.dirname(file))).toEqual([`${SID}.jsonl`]);
  }

  it('a fix and its restore keep the owner, group and mode of a file the writer owns', async () => {
    await fixAndRestoreKeep(process.getuid?.() ?? 0, process.getgid?.() ?? 0);
  });

  // Only root can give a file to another user (the test's chown, like the writer's).
  it.skipIf(!isRoot)('a fix and its restore keep the owner, group and mode of a file another user owns (sudo cclint fix)', async () => {
    await fixAndRestoreKeep(1234, 1234);
  });
});
