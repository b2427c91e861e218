import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, assistant, id, run, sandbox, sid, user } from './fixture.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

/** 24 ordinary sessions, each a few turns, with distinct file times (session n written at minute n). */
function crowd(): void {
  for (let n = 1; n <= 24; n++) {
    const file = box.write(`${sid(n)}.jsonl`, [
      user(1, null, `ordinary question number ${n} about the build`, { session: sid(n) }),
      assistant(2, 1, `an ordinary answer ${n}`, { session: sid(n) }),
      user(3, 2, 'and then?', { session: sid(n) }),
      assistant(4, 3, 'then nothing', { session: sid(n) }),
    ]);
    const t = new Date(Date.UTC(2026, 0, 5, 3, n));
    fs.utimesSync(file, t, t);
  }
}

describe('cclint search', () => {
  it('finds a word planted in one prompt among 24 sessions, with the session id and the resume command', async () => {
    crowd();
    box.write(`${sid(99)}.jsonl`, [
      user(1, null, 'hello', { session: sid(99) }),
      assistant(2, 1, 'hi', { session: sid(99) }),
      user(3, 2, 'please look at the zanzibarquux table before lunch', { session: sid(99) }),
      assistant(4, 3, 'done', { session: sid(99) }),
    ]);
    const r = await run(['search', 'ZanzibarQuux', 'claude/projects'], box);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `hello  ${sid(99)} · last activity 2026-01-05 03:04 UTC`,
        `  cd /home/u/proj && claude --resume ${sid(99)}`,
        '  2026-01-05 03:03  user       please look at the zanzibarquux table before lunch',
        '',
        '1 match in 1 session',
        '',
      ].join('\n'),
    );
    const json = await run(['search', '--format', 'json', 'zanzibarquux', 'claude/projects'], box);
    const parsed = JSON.parse(json.stdout) as Array<{ sessionId: string; command: string; hits: Array<{ uuid: string; place: string; excerpt: string; match: { start: number; end: number } }> }>;
    expect(parsed).toHaveLength(1);
    expect(parsed[0]?.sessionId).toBe(sid(99));
    expect(parsed[0]?.command).toBe(`cd /home/u/proj && claude --resume ${sid(99)}`);
    expect(parsed[0]?.hits.map((h) => [h.uuid, h.place])).toEqual([[id(3), 'resumed']]);
    const hit = parsed[0]?.hits[0];
    expect(hit?.excerpt.slice(hit.match.start, hit.match.end)).toBe('zanzibarquux');
  });

  it('lists sessions newest first and says nothing matched with exit 1', async () => {
    crowd();
    const r = await run(['search', '--format', 'json', 'ordinary question', 'claude/projects'], box);
    expect(r.code).toBe(0);
    const ids = (JSON.parse(r.stdout) as Array<{ sessionId: string }>).map((s) => s.sessionId);
    expect(ids).toEqual(Array.from({ length: 24 }, (_, i) => sid(24 - i)));
    const none = await run(['search', 'nowhere-to-be-found', 'claude/projects'], box);
    expect(none).toEqual({ code: 1, stdout: 'no match\n', stderr: '' });
    expect((await run(['search', '--format', 'json', 'nowhere', 'claude/projects'], box)).stdout).toBe('[]\n');
  });

  it('leaves out a word said only on an abandoned branch unless --all, which labels it', async () => {
    box.write(`${sid(1)}.jsonl`, [
      user(1, null, 'first prompt'),
      assistant(2, 1, 'answer one'),
      user(3, 2, 'try the marmaladefox approach'),
      assistant(4, 3, 'marmaladefox is done'),
      user(5, 2, 'no, edited prompt'),
      assistant(6, 5, 'all done'),
    ]);
    const plain = await run(['search', 'marmaladefox', 'claude/projects'], box);
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe('no match\n');
    const all = await run(['search', '--all', 'marmaladefox', 'claude/projects'], box);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('  2026-01-05 03:03  user       [abandoned branch] try the marmaladefox approach\n');
    expect(all.stdout).toContain('  2026-01-05 03:04  assistant  [abandoned branch] marmaladefox is done\n');
  });

  it('searches sidechains only with --all, and takes a regular expression', async () => {
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'main prompt'), assistant(2, 1, 'main answer')]);
    box.write(`${sid(1)}/subagents/agent-a1.jsonl`, [
      user(10, null, 'subagent task: find the gizmo', { sidechain: true }),
      assistant(11, 10, 'found the gizmo', { sidechain: true }),
    ]);
    expect((await run(['search', 'gizmo', 'claude/projects'], box)).code).toBe(1);
    const all = await run(['search', '--all', '--regex', 'gizm[o]', 'claude/projects'], box);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('[sidechain] subagent task: find the gizmo');
    expect((await run(['search', '--regex', '(', 'claude/projects'], box)).code).toBe(2);
  });

  it('escapes what it prints and shell-quotes the folder', async () => {
    box.write(
      `${sid(1)}.jsonl`,
      [user(1, null, 'evil \u001b[2J needle here', { cwd: "/home/u/it's mine" }), assistant(2, 1, 'ok', { cwd: "/home/u/it's mine" })],
      '-home-u-it-s-mine',
    );
    const r = await run(['search', 'needle', 'claude/projects'], box);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('evil \\x1b[2J needle here');
    expect(r.stdout).toContain(`  cd '/home/u/it'\\''s mine' && claude --resume ${sid(1)}\n`);
  });

  it('finds text JSON escapes in the file (quotes, line breaks) and non-ASCII text in any case', async () => {
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'he said "Straße"\nthen left'), assistant(2, 1, 'ÉCOLE noted')]);
    expect((await run(['search', 'said "straße"', 'claude/projects'], box)).code).toBe(0);
    expect((await run(['search', 'école', 'claude/projects'], box)).code).toBe(0);
    expect((await run(['search', '-e', 'said.*then', 'claude/projects'], box)).code).toBe(1);
    expect((await run(['search', '-e', 'said[^]*then', 'claude/projects'], box)).code).toBe(0);
  });
});
