/**
 * Issue 12, item 7: transcript text never reaches the terminal raw. A
 * project whose transcripts carry escape sequences, bidi overrides, C1
 * controls, NUL, DEL and a lone surrogate in every field a command prints
 * (test/support/hostile.ts) goes through every read-only command, as the
 * built binary and in-process. No output may hold a character a terminal
 * acts on (a line feed only as the output's own line end), and each hazard
 * must be shown as a visible escape, not dropped.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run, sandbox } from '../support/cli.js';
import { MAIN_SESSION, OTHER_FILE, RAW_CONTROL, writeHostileProject } from '../support/hostile.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist', 'cli.js');
const box = sandbox();
afterAll(() => box.cleanup());
const project = writeHostileProject(path.join(box.root, 'projects'));
const main = path.join(project, `${MAIN_SESSION}.jsonl`);
const other = path.join(project, OTHER_FILE);

/** The hazard of support/hostile.ts as it must be shown. */
const SHOWN = '\\x1b[2J\\x1b[H\\x1b]0;pwned\\x07x\\u202ey\\u009b31m\\u2066z\\x00\\x7f\\ud800';
const SHOWN_FOLDER = '-home-u-p\\x1b[31mred';

interface Case {
  readonly name: string;
  readonly argv: readonly string[];
  readonly code: number;
  /** Visible escapes the output must hold (stdout and stderr together). */
  readonly shows: readonly string[];
}

const CASES: readonly Case[] = [
  {
    name: 'check (stylish, info listed)',
    argv: ['check', '--verbose', project],
    code: 1,
    shows: [
      `${SHOWN_FOLDER}/${MAIN_SESSION}.jsonl`,
      `${SHOWN_FOLDER}/notes\\n\\x1b[1mbold.jsonl`,
      `cwd "/home/u/${SHOWN}"`,
      `timestamp "2026${SHOWN}"`,
      `system/mid${SHOWN} record`,
      `record type "kind${SHOWN}"`,
      'uuid uuid\\x1b[2J…',
      'parentUuid parent\\x1b[…',
      'tool_use toolu_\\x1b[…',
    ],
  },
  {
    name: 'check --format github',
    argv: ['check', '--format', 'github', project],
    code: 1,
    // The line break is encoded as GitHub reads it back (%0A), the escape shown.
    shows: [`::group::`, `${SHOWN_FOLDER}/notes%0A\\x1b[1mbold.jsonl`, `timestamp "2026${SHOWN}"`],
  },
  {
    name: 'tree --all',
    argv: ['tree', '--all', main],
    code: 0,
    shows: [`compacted (boundary${SHOWN})`, `[att${SHOWN}]`, 'uuid\\x1b[2J user', '[orphaned: parent parent\\x1b[ missing'],
  },
  { name: 'show', argv: ['show', main], code: 0, shows: [`after a break ${SHOWN}`, '(parent\\x1b[) is not in the file'] },
  {
    name: 'show --intended',
    argv: ['show', '--intended', main],
    code: 0,
    shows: [`prompt ${SHOWN} end`, `→ Bash${SHOWN}`],
  },
  { name: 'show of a file whose name holds a line break', argv: ['show', other], code: 0, shows: ['notes\\n\\x1b[1mbold.jsonl: resume loads'] },
  { name: 'sessions', argv: ['sessions', project], code: 0, shows: ['Title \\x1b[2J\\x1b[H', 'sid\\x1b[2J\\x1b '] },
  {
    name: 'an error naming a hostile path',
    argv: ['show', path.join(project, 'gone\u001b[31m.jsonl')],
    code: 2,
    shows: ['gone\\x1b[31m.jsonl: no such file or folder'],
  },
  { name: 'a usage error quoting a hostile argument', argv: ['check', '--format', 'x\u001b[2J'], code: 2, shows: ["'x\\x1b[2J'"] },
];

function expectClean(output: string, label: string): void {
  const raw = RAW_CONTROL.exec(output);
  expect(raw, `${label}: raw U+${raw?.[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${raw?.index}`).toBeNull();
  // A lone surrogate written out becomes U+FFFD: it must have been escaped before.
  expect(output.includes('\ufffd'), `${label}: a lone surrogate reached the stream`).toBe(false);
}

describe('terminal hygiene, as the built binary', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const r = spawnSync(process.execPath, [cli, ...c.argv], { cwd: box.root, env: box.env, encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(c.code);
      expectClean(r.stdout, 'stdout');
      expectClean(r.stderr, 'stderr');
      for (const shown of c.shows) expect(r.stdout + r.stderr).toContain(shown);
    });
  }

  it('keeps exact values in JSON and SARIF, written so that a terminal is safe too', () => {
    for (const format of ['json', 'sarif']) {
      const r = spawnSync(process.execPath, [cli, 'check', '--format', format, project], { cwd: box.root, env: box.env, encoding: 'utf8' });
      expect(r.status).toBe(1);
      expectClean(r.stdout.replaceAll('\n', ' '), format);
      expect(r.stdout).toContain('\\u001b[2J\\u001b[H\\u001b]0;pwned\\u0007x\\u202ey\\u009b31m\\u2066z\\u0000\\u007f\\ud800');
      expect(r.stdout).toContain('cwd \\"/home/u/\\u001b[2J');
    }
    const json = spawnSync(process.execPath, [cli, 'check', '--format', 'json', project], { cwd: box.root, env: box.env, encoding: 'utf8' });
    const report = JSON.parse(json.stdout) as { results: Array<{ filePath: string; messages: Array<{ message: string }> }> };
    expect(report.results.map((r) => r.filePath)).toContain(path.relative(box.root, other));
    expect(report.results[0]?.messages.map((m) => m.message)).toContain(
      `timestamp "2026\u001b[2J\u001b[H\u001b]0;pwned\u0007x\u202ey\u009b31m\u2066z\u0000\u007f\ud800" is not ISO-8601 UTC (YYYY-MM-DDTHH:MM:SS.sssZ)`,
    );
  });

  it('keeps exact values in show --format json and sessions --format json', () => {
    const show = spawnSync(process.execPath, [cli, 'show', '--intended', '--format', 'json', main], { cwd: box.root, env: box.env, encoding: 'utf8' });
    expectClean(show.stdout.replaceAll('\n', ' '), 'show json');
    const messages = (JSON.parse(show.stdout) as { messages: Array<{ text: string }> }).messages;
    expect(messages[0]?.text).toBe('prompt \u001b[2J\u001b[H\u001b]0;pwned\u0007x\u202ey\u009b31m\u2066z\u0000\u007f\ud800 end');
    const sessions = spawnSync(process.execPath, [cli, 'sessions', '--format', 'json', project], { cwd: box.root, env: box.env, encoding: 'utf8' });
    expectClean(sessions.stdout.replaceAll('\n', ' '), 'sessions json');
    const rows = JSON.parse(sessions.stdout) as Array<{ title: string; sessionId: string }>;
    expect(rows.map((r) => r.sessionId).sort()).toEqual([MAIN_SESSION, 'sid\u001b[2J\u001b[H\u001b]0;pwned\u0007x\u202ey\u009b31m\u2066z\u0000\u007f\ud800']);
  });
});

describe('terminal hygiene, in-process', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const r = await run(c.argv, { env: box.env, cwd: box.root });
      expect(r.code, r.stderr).toBe(c.code);
      expectClean(r.stdout, 'stdout');
      expectClean(r.stderr, 'stderr');
      for (const shown of c.shows) expect(r.stdout + r.stderr).toContain(shown);
    });
  }
});
