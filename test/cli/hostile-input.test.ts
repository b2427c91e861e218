/**
 * Issue 12, hostile input in the read-only commands, as the built binary: a
 * record nested thousands of levels deep, a line of tens of megabytes, and
 * folders with symbolic link loops. Each command finishes with its normal
 * exit code; what it cannot use is said in one line, never with a stack
 * trace. (A binary file named like a session: what-is-a-transcript.test.ts.)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { sandbox } from '../support/cli.js';
import { assistant, user } from '../helpers/records.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist', 'cli.js');
const box = sandbox();
afterAll(() => box.cleanup());

function cclint(...argv: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...argv], { cwd: box.root, env: box.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** No stack frame, no V8 stack-overflow or internal-error text. */
function expectNoCrash(stderr: string): void {
  expect(stderr).not.toMatch(/\n\s+at /);
  expect(stderr).not.toMatch(/Maximum call stack|RangeError|internal error/);
}

const SESSION = '3c5e7a90-2b4d-4f6a-8c1e-0d2f4a6b8c0e';
const line = (record: object): string => JSON.stringify(record);
/** `record` as a line with one more field, `levels` deep. */
const withDeep = (record: object, key: string, levels: number): string =>
  line(record).replace(/}$/, `,"${key}":${'{"x":['.repeat(levels)}0${']}'.repeat(levels)}}`);

describe('a record nested thousands of levels deep', () => {
  const dir = path.join(box.root, 'deep', '-home-u-proj');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${SESSION}.jsonl`);
  const u1 = user('u1', { content: 'hello' });
  const a1 = assistant('a1', { parent: 'u1', text: 'hi there' });
  const u2 = user('u2', { parent: 'a1', content: 'more' });
  fs.writeFileSync(
    file,
    [
      withDeep(u1, 'nested', 5_000),
      withDeep(a1, 'nested', 5_000),
      withDeep(a1, 'nested', 5_000), // an identical copy: compared as JSON
      // A timestamp that is no string but a deep value: shown as an excerpt.
      line(u2).replace(/"timestamp":"[^"]*"/, `"timestamp":${'['.repeat(5_000)}1${']'.repeat(5_000)}`),
      withDeep({ type: 'custom-title', sessionId: SESSION }, 'customTitle', 100_000),
      withDeep({ type: 'summary', leafUuid: 'x' }, 'summary', 100_000),
      '',
    ].join('\n'),
  );

  it('check reports it like any other record', () => {
    const r = cclint('check', '--format', 'json', dir);
    expectNoCrash(r.stderr);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { results: Array<{ messages: Array<{ ruleId: string; line: number; message: string }> }> };
    const found = report.results[0]?.messages.map((m) => [m.ruleId, m.line]);
    expect(found).toContainEqual(['duplicate-uuid', 3]);
    expect(found).toContainEqual(['invalid-timestamp', 4]);
    expect(report.results[0]?.messages.find((m) => m.ruleId === 'invalid-timestamp')?.message).toBe(
      `timestamp "${'['.repeat(40)}" is not ISO-8601 UTC (YYYY-MM-DDTHH:MM:SS.sssZ)`,
    );
  });

  it('tree, show, show --intended and sessions read it', () => {
    for (const argv of [['tree', file], ['show', file], ['show', '--intended', file], ['sessions', dir]]) {
      const r = cclint(...argv);
      expectNoCrash(r.stderr);
      expect(r.stderr, argv.join(' ')).toBe('');
      expect(r.code, argv.join(' ')).toBe(0);
    }
    expect(cclint('show', file).stdout).toContain('user       hello');
  });
});

describe('a line of tens of megabytes', () => {
  const dir = path.join(box.root, 'huge', '-home-u-proj');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${SESSION}.jsonl`);
  const garbage = 'x'.repeat(48 * 1024 * 1024);
  const longReply = assistant('a1', { parent: 'u1', text: `long ${'y'.repeat(24 * 1024 * 1024)}` });
  fs.writeFileSync(file, [line(user('u1', { content: 'hello' })), garbage, line(longReply), line(user('u2', { parent: 'a1', content: 'thanks' })), ''].join('\n'));

  it('check names the line that is not JSON, and reads the long record', () => {
    const r = cclint('check', '--format', 'json', file);
    expectNoCrash(r.stderr);
    expect(r.code).toBe(1);
    const report = JSON.parse(r.stdout) as { results: Array<{ resume: { loaded: number }; messages: Array<{ ruleId: string; line: number; message: string }> }> };
    const errors = report.results[0]?.messages.filter((m) => m.ruleId === 'invalid-json');
    expect(errors?.map((m) => [m.line, m.message])).toEqual([[2, 'the line is not valid JSON (50,331,648 bytes); Claude Code skips it']]);
    expect(report.results[0]?.resume.loaded).toBe(3);
  });

  it('tree, show and sessions read around it', () => {
    for (const argv of [['tree', file], ['show', file], ['sessions', file]]) {
      const r = cclint(...argv);
      expectNoCrash(r.stderr);
      expect(r.code, argv.join(' ')).toBe(0);
    }
    expect(cclint('show', file).stdout).toContain('assistant  long yyyy');
  });
});

describe('symbolic link loops in a folder walk', () => {
  const dir = path.join(box.root, 'links', '-home-u-proj');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${SESSION}.jsonl`), `${[user('u1', { content: 'hello' }), assistant('a1', { parent: 'u1' })].map(line).join('\n')}\n`);
  fs.symlinkSync('.', path.join(dir, 'here'));
  fs.symlinkSync('..', path.join(dir, 'up'));
  fs.symlinkSync('self', path.join(dir, 'self'));
  fs.symlinkSync('loop.jsonl', path.join(dir, 'loop.jsonl'));
  const top = path.join(box.root, 'links');
  const real = fs.realpathSync(dir);
  const notes = [
    `cclint: ${path.join(dir, 'here')}: skipped, a symbolic link to ${real}, which is already being checked`,
    `cclint: ${path.join(dir, 'loop.jsonl')}: too many levels of symbolic links (a link loop)`,
    `cclint: ${path.join(dir, 'self')}: too many levels of symbolic links (a link loop)`,
    `cclint: ${path.join(dir, 'up')}: skipped, a symbolic link to ${path.dirname(real)}, which is already being checked`,
  ];

  it('check walks each folder once and says what it skipped, one line each', () => {
    const r = cclint('check', top);
    expectNoCrash(r.stderr);
    expect(r.code).toBe(0);
    expect(r.stderr.trimEnd().split('\n').sort()).toEqual(notes);
    expect(r.stdout).toBe('✔ No problems in 1 file\n  1 info finding(s) not listed; --verbose lists them\n');
  });

  it('sessions does the same', () => {
    const r = cclint('sessions', '--format', 'json', top);
    expectNoCrash(r.stderr);
    expect(r.code).toBe(0);
    expect(r.stderr.trimEnd().split('\n').sort()).toEqual(notes);
    expect((JSON.parse(r.stdout) as unknown[]).length).toBe(1);
  });

  it('a session path that is a link loop is exit 2 in one line', () => {
    for (const command of ['check', 'tree', 'show', 'sessions']) {
      const r = cclint(command, path.join(dir, 'loop.jsonl'));
      expectNoCrash(r.stderr);
      expect(r.code, command).toBe(2);
      expect(r.stderr, command).toBe(`cclint: ${path.join(dir, 'loop.jsonl')}: too many levels of symbolic links (a link loop)\n`);
    }
  });
});

describe.skipIf(process.platform !== 'linux')('a file whose name is not valid UTF-8', () => {
  // Linux keeps names as bytes; Node decodes a listing as UTF-8, with U+FFFD for what it cannot.
  const dir = path.join(box.root, 'names', '-home-u-proj');
  fs.mkdirSync(dir, { recursive: true });
  const good = path.join(dir, `${SESSION}.jsonl`);
  fs.writeFileSync(good, `${line(user('u1', { sessionId: SESSION }))}\n${line(assistant('a1', { parent: 'u1', sessionId: SESSION }))}\n`);
  fs.writeFileSync(Buffer.concat([Buffer.from(`${dir}/a`), Buffer.from([0xff]), Buffer.from('b.jsonl')]), fs.readFileSync(good));
  const shown = `names/-home-u-proj/a\uFFFDb.jsonl`;

  it('check and fix say why it cannot be read, not that it vanished; the other sessions are read', () => {
    const check = cclint('check', '--format', 'json', 'names');
    expect(check.stderr).toBe(`cclint: ${shown}: its name is not valid UTF-8, so cclint cannot open it by name (rename the file to read it)\n`);
    expect((JSON.parse(check.stdout) as { results: Array<{ filePath: string }> }).results.map((r) => r.filePath)).toEqual([`names/-home-u-proj/${SESSION}.jsonl`]);
    const fix = cclint('fix', '--dry-run', 'names');
    expect(fix.stderr).toContain(`cclint: skipped ${shown}: unreadable: ${shown}: its name is not valid UTF-8`);
    expectNoCrash(fix.stderr);
  });
});
