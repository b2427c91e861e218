/**
 * Per-file isolation in `fix`: in a folder where one session is live, one
 * is not a transcript, one holds a record nested 5,000 levels deep and one
 * can be fixed, the fixable one is fixed, each other one is skipped (or its
 * fix left out) with a one-line reason, the summary lists what was skipped
 * and why, no stack trace is printed, and the exit code is 2 because
 * something could not be done.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assistant, user } from '../helpers/records.js';
import { brokenSession } from '../support/big-session.js';
import { run, sandbox } from '../support/cli.js';

const box = sandbox();
afterAll(() => box.cleanup());

describe('fix --yes on a folder with files it cannot do', () => {
  const dir = path.join(box.configDir, 'projects', '-tmp-app');
  fs.mkdirSync(dir, { recursive: true });
  const [live, binary, deep, good] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const file = (sid: string): string => path.join(dir, `${sid}.jsonl`);
  fs.writeFileSync(file(live), brokenSession(20_000, 100, live).text);
  fs.writeFileSync(file(binary), Buffer.from([0, 1, 2, 3, 0xff, 0xfe, 10, 0, 0, 7, 10]));
  const withDeep = (record: object, levels: number): string =>
    JSON.stringify(record).replace(/}$/, `,"nested":${'{"x":['.repeat(levels)}0${']}'.repeat(levels)}}`);
  fs.writeFileSync(
    file(deep),
    `${[
      withDeep(user('u1', { content: 'hello', sessionId: deep }), 5_000),
      withDeep(assistant('a1', { parent: 'u1', text: 'hi', sessionId: deep }), 5_000),
      withDeep(user('u2', { parent: 'missing-parent', content: 'more', sessionId: deep }), 5_000),
    ].join('\n')}\n`,
  );
  fs.writeFileSync(file(good), brokenSession(20_000, 100, good).text);
  const old = new Date(Date.now() - 3_600_000);
  for (const sid of [binary, deep, good]) fs.utimesSync(file(sid), old, old);
  const before = new Map([live, binary, deep, good].map((sid) => [sid, fs.readFileSync(file(sid))]));

  it('fixes what it can, skips the rest with one line each, lists them, exits 2', async () => {
    const r = await run(['fix', '--yes', dir], { env: box.env, cwd: box.root });
    expect(r.code).toBe(2);
    const all = r.stdout + r.stderr;
    expect(all).not.toMatch(/\n\s+at |RangeError|Maximum call stack|internal error/);
    // The fixable one is fixed.
    expect(fs.readFileSync(file(good)).equals(before.get(good) as Buffer)).toBe(false);
    expect(r.stdout).toMatch(new RegExp(`^fixed \\S*${good}\\.jsonl`, 'm'));
    // The others are left exactly as they were.
    for (const sid of [live, binary, deep]) expect(fs.readFileSync(file(sid)).equals(before.get(sid) as Buffer), sid).toBe(true);
    // One line each on stderr, as they happen...
    expect(r.stderr).toMatch(new RegExp(`^cclint: skipped \\S*${live}\\.jsonl: refusing to write .*changed \\d+ s ago.*--force$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^cclint: skipped \\S*${binary}\\.jsonl: not a transcript`, 'm'));
    // ...and the summary lists them.
    const summary = r.stdout.slice(r.stdout.indexOf('skipped 2 file(s), left as they were:'));
    expect(summary.split('\n').filter((l) => l.startsWith('  '))).toHaveLength(2);
    expect(summary).toContain(live);
    expect(summary).toContain(binary);
    // The deep record's fix is left out, with its reason.
    expect(r.stdout).toMatch(new RegExp(`${deep}\\.jsonl:3 phantom-parent: not applied: the record cannot be rewritten \\(nested too deep\\)`));
  });
});

describe('fix never writes through a symbolic link', () => {
  const box2 = sandbox();
  afterAll(() => box2.cleanup());
  const outside = path.join(box2.root, 'outside');
  fs.mkdirSync(outside, { recursive: true });
  const projects = path.join(box2.configDir, 'projects');
  fs.mkdirSync(projects, { recursive: true });
  const old = new Date(Date.now() - 3_600_000);

  it('a session file that is a link: skipped, saying so; the file it points to is unchanged', async () => {
    const sid = randomUUID();
    const target = path.join(outside, 'real.jsonl');
    fs.writeFileSync(target, brokenSession(20_000, 100, sid).text);
    fs.utimesSync(target, old, old);
    const dir = path.join(projects, '-tmp-linked-file');
    fs.mkdirSync(dir, { recursive: true });
    fs.symlinkSync(target, path.join(dir, `${sid}.jsonl`));
    const before = fs.readFileSync(target);
    const r = await run(['fix', '--yes', dir], { env: box2.env, cwd: box2.root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/skipped .*is a symbolic link, and cclint never writes through one/);
    expect(fs.readFileSync(target).equals(before)).toBe(true);
    expect(fs.readdirSync(outside)).toEqual(['real.jsonl']);
  });

  it('a project folder that is a link: skipped, saying so; nothing outside the projects root changes', async () => {
    const sid = randomUUID();
    const real = path.join(outside, 'proj');
    fs.mkdirSync(real, { recursive: true });
    fs.writeFileSync(path.join(real, `${sid}.jsonl`), brokenSession(20_000, 100, sid).text);
    fs.utimesSync(path.join(real, `${sid}.jsonl`), old, old);
    const link = path.join(projects, '-tmp-linked-dir');
    fs.symlinkSync(real, link);
    const before = fs.readFileSync(path.join(real, `${sid}.jsonl`));
    const r = await run(['fix', '--yes', link], { env: box2.env, cwd: box2.root });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is a symbolic link, and cclint never writes through one/);
    expect(fs.readFileSync(path.join(real, `${sid}.jsonl`)).equals(before)).toBe(true);
    expect(fs.readdirSync(real)).toEqual([`${sid}.jsonl`]);
  });
});
