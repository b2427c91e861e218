/**
 * Issue 12, item 8: cclint knows what is a transcript. A binary file named
 * like a session, a text file named on the command line and an empty or
 * wrong folder are each said to be what they are, in one line, with the
 * spec's exit code; none is credited with a perfect resume, and no fix
 * touches a file that is not a transcript. Run as the built binary and
 * in-process.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run, sandbox } from '../support/cli.js';
import { assistant, jsonl, user } from '../helpers/records.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const cli = path.join(root, 'dist', 'cli.js');
const box = sandbox();
afterAll(() => box.cleanup());

const projects = path.join(box.configDir, 'projects');
const project = path.join(projects, '-home-u-proj');
const BINARY = '7d0c9a1e-5b2f-4e3a-9c8d-1f2e3a4b5c6d.jsonl';
const HEALTHY = '2a4c6e80-1b3d-4f5a-8c7e-9d0f1a2b3c4d.jsonl';
const EMPTY = '0e1d2c3b-4a59-4867-8f5e-6d7c8b9a0f1e.jsonl';
/** The start of a PNG file, then random-looking bytes: NULs, line feeds, bytes that are not UTF-8. */
const binaryBytes = Buffer.concat([
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  Buffer.from(Array.from({ length: 4000 }, (_, i) => (i * 131 + 7) % 256)),
]);
const old = new Date(Date.now() - 3_600_000);
fs.mkdirSync(project, { recursive: true });
fs.writeFileSync(path.join(project, BINARY), binaryBytes);
fs.writeFileSync(path.join(project, HEALTHY), jsonl([user('u1', { content: 'hello' }), assistant('a1', { parent: 'u1' })]));
for (const name of [BINARY, HEALTHY]) fs.utimesSync(path.join(project, name), old, old);
fs.writeFileSync(path.join(box.root, 'passwd'), 'root:x:0:0:root:/root:/bin/bash\nbin:x:1:1:bin:/bin:/sbin/nologin\n# end\n');
fs.mkdirSync(path.join(box.root, 'empty-folder'));
fs.mkdirSync(path.join(box.root, 'wrong-folder', 'sub'), { recursive: true });
fs.writeFileSync(path.join(box.root, 'wrong-folder', 'notes.txt'), 'not a session\n');
fs.mkdirSync(path.join(box.root, 'empties'));
fs.writeFileSync(path.join(box.root, 'empties', EMPTY), '');
fs.mkdirSync(path.join(box.root, 'blanks'));
fs.writeFileSync(path.join(box.root, 'blanks', EMPTY), '\n  \n\t\r\n\n');

const binaryShown = path.relative(box.root, path.join(project, BINARY));
const BINARY_VERDICT = `not a Claude Code transcript: ${binaryBytes.length.toLocaleString('en-US')} bytes of binary data, no JSON record`;

interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function binary(argv: readonly string[]): Outcome {
  const r = spawnSync(process.execPath, [cli, ...argv], { cwd: box.root, env: box.env, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

async function inProcess(argv: readonly string[]): Promise<Outcome> {
  return run(argv, { env: box.env, cwd: box.root });
}

for (const [how, cclint] of [
  ['the built binary', async (argv: readonly string[]) => binary(argv)],
  ['in-process', inProcess],
] as const) {
  describe(`what is a transcript, ${how}`, () => {
    it('check: a text file named on the command line is not a transcript, never "100%" (exit 1)', async () => {
      const r = await cclint(['check', 'passwd']);
      expect(r).toEqual({
        code: 1,
        stdout: 'passwd\n  1  error  not a Claude Code transcript: 3 line(s) of text, none of them a JSON object  not-a-transcript\n\n✖ 1 problem (1 error, 0 warnings, 0 info)\n',
        stderr: '',
      });
      const json = JSON.parse((await cclint(['check', '--format', 'json', 'passwd'])).stdout) as {
        results: Array<{ resume?: unknown; score?: unknown; messages: Array<{ ruleId: string }> }>;
      };
      // The spec's keys are on every result; null says there is nothing to measure.
      expect(json.results[0]).toHaveProperty('resume', null);
      expect(json.results[0]).toHaveProperty('score', null);
      expect(json.results[0]).not.toHaveProperty('forks');
      expect(json.results[0]?.messages.map((m) => m.ruleId)).toEqual(['not-a-transcript']);
    });

    it('check: a binary file named like a session is one error, with no fix offered', async () => {
      const r = await cclint(['check', project]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(
        `${binaryShown}\n  1  error  ${BINARY_VERDICT}  not-a-transcript\n\n✖ 1 problem (1 error, 0 warnings, 0 info)\n` +
          '  1 info finding(s) not listed; --verbose lists them\n',
      );
    });

    it('fix leaves a binary file byte for byte as it was', async () => {
      const dry = await cclint(['fix', '--dry-run', project]);
      expect(dry.stdout).toContain('would apply 0 fix(es)');
      const r = await cclint(['fix', '--yes', project]);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(fs.readFileSync(path.join(project, BINARY)).equals(binaryBytes)).toBe(true);
      expect(fs.existsSync(path.join(box.cclintHome, 'backups'))).toBe(false);
    });

    it('show and tree refuse a file that is not a transcript, in one line (exit 2)', async () => {
      for (const command of ['show', 'tree']) {
        expect(await cclint([command, path.join(project, BINARY)])).toEqual({
          code: 2,
          stdout: '',
          stderr: `cclint: ${binaryShown}: ${BINARY_VERDICT}\n`,
        });
      }
      expect(await cclint(['show', '--intended', 'passwd'])).toEqual({
        code: 2,
        stdout: '',
        stderr: 'cclint: passwd: not a Claude Code transcript: 3 line(s) of text, none of them a JSON object\n',
      });
    });

    it('sessions leaves a file that is not a transcript out, says so, and exits 2 only when it was named', async () => {
      const listed = await cclint(['sessions', '--format', 'json', project]);
      expect(listed.code).toBe(0);
      expect(listed.stderr).toBe(`cclint: ${binaryShown}: ${BINARY_VERDICT}; skipped\n`);
      expect((JSON.parse(listed.stdout) as Array<{ sessionId: string }>).map((s) => s.sessionId)).toEqual([HEALTHY.slice(0, -6)]);
      const named = await cclint(['sessions', 'passwd']);
      expect(named.code).toBe(2);
      expect(named.stdout).toBe('no sessions found\n');
    });

    it('an empty folder, or one with no .jsonl file, is exit 2 with "no session file found" for every command', async () => {
      for (const folder of ['empty-folder', 'wrong-folder']) {
        const line = `cclint: no session file found under ${folder}\n`;
        expect(await cclint(['check', folder])).toEqual({ code: 2, stdout: '', stderr: line });
        expect(await cclint(['sessions', folder])).toEqual({ code: 2, stdout: 'no sessions found\n', stderr: line });
        expect(await cclint(['show', folder])).toEqual({ code: 2, stdout: '', stderr: line });
        expect(await cclint(['tree', folder])).toEqual({ code: 2, stdout: '', stderr: line });
        const fix = await cclint(['fix', '--dry-run', folder]);
        expect(fix.code).toBe(2);
        expect(fix.stderr).toBe(line);
      }
    });

    it('a folder without sessions next to one with them: the others are still checked, exit 2', async () => {
      const r = await cclint(['check', 'empty-folder', path.join(project, HEALTHY)]);
      expect(r).toEqual({
        code: 2,
        stdout: '✔ No problems in 1 file\n  1 info finding(s) not listed; --verbose lists them\n',
        stderr: 'cclint: no session file found under empty-folder\n',
      });
    });

    it('an empty projects root is exit 2 for a bare `check`', async () => {
      const env = { ...box.env, CLAUDE_CONFIG_DIR: path.join(box.root, 'fresh') };
      fs.mkdirSync(path.join(box.root, 'fresh', 'projects'), { recursive: true });
      const r = how === 'in-process' ? await run(['check'], { env, cwd: box.root }) : (() => {
        const s = spawnSync(process.execPath, [cli, 'check'], { cwd: box.root, env, encoding: 'utf8' });
        return { code: s.status ?? -1, stdout: s.stdout, stderr: s.stderr };
      })();
      expect(r).toEqual({ code: 2, stdout: '', stderr: `cclint: no session file found under ${path.join(box.root, 'fresh', 'projects')}\n` });
    });

    it('a session file of blank lines only is a quiet note too, exit 0', async () => {
      const r = await cclint(['check', 'blanks']);
      expect(r).toEqual({
        code: 0,
        stdout: '✔ No problems in 1 file\n',
        stderr: `cclint: blanks/${EMPTY}: only blank lines, nothing to check\n`,
      });
    });

    it('an empty session file stays a quiet note, exit 0, as Claude Code leaves them behind', async () => {
      const r = await cclint(['check', 'empties']);
      expect(r).toEqual({
        code: 0,
        stdout: '✔ No problems in 1 file\n',
        stderr: `cclint: empties/${EMPTY}: empty file, nothing to check\n`,
      });
    });
  });
}
