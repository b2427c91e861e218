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

  it('with --all, labels the rows of a transcript not named by its session id by where they lie, not as a sidechain', async () => {
    box.write('notes.jsonl', [user(1, null, 'the quokka question'), assistant(2, 1, 'a quokka answer')]);
    const all = await run(['search', '--all', 'quokka', 'claude/projects'], box);
    expect(all.code).toBe(0);
    expect(all.stdout).toContain('  2026-01-05 03:01  user       the quokka question\n');
    expect(all.stdout).not.toContain('[sidechain]');
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

  describe('places a match after, or on, text whose lower case has another length', () => {
    type Hit = { excerpt: string; match: { start: number; end: number } };
    const hitsOf = (stdout: string): Hit[] => (JSON.parse(stdout) as Array<{ hits: Hit[] }>).flatMap((s) => s.hits);
    const matched = (h: Hit): string => h.excerpt.slice(h.match.start, h.match.end);
    /** The highlighted text of each hit line of a search in colour. */
    const highlighted = (stdout: string): string[] => [...stdout.matchAll(/\u001b\[31m\u001b\[1m(.*?)\u001b\[22m\u001b\[39m/g)].map((m) => m[1] as string);

    // U+0130 lower-cases to two code units ("i" and U+0307): the match used to be placed 10 units late.
    it('gives the JSON offsets and highlights the match after ten İ, plain or --regex, with or without the cache', async () => {
      box.write(`${sid(1)}.jsonl`, [user(1, null, 'İİİİİİİİİİ needle tail text here'), assistant(2, 1, 'ok')]);
      for (const args of [['needle'], ['NEEDLE'], ['--regex', 'ne+dle'], ['--cache', 'needle'], ['--cache', 'needle']]) {
        const json = await run(['search', '--format', 'json', ...args, 'claude/projects'], box);
        expect(json.code).toBe(0);
        const [hit] = hitsOf(json.stdout);
        expect(hit?.excerpt).toBe('İİİİİİİİİİ needle tail text here');
        expect(hit?.match).toEqual({ start: 11, end: 17 });
        const text = await run(['search', ...args, 'claude/projects'], { ...box, env: { ...box.env, FORCE_COLOR: '1' } });
        expect(highlighted(text.stdout)).toEqual(['needle']);
      }
    });

    it('places a match after characters that grow, keep their length or sit in surrogate pairs', async () => {
      // İ grows; Σ lower-cases by context (σ or ς, one unit either way); 𐐀 (Deseret) is two units both ways; ẞ and K (Kelvin) keep one.
      const said = 'İ𐐀 ΣΑΣ İİ ẞ \u212A 🎉 İ then the Needle and more';
      box.write(`${sid(1)}.jsonl`, [user(1, null, said), assistant(2, 1, 'ok')]);
      const json = await run(['search', '--format', 'json', 'needle', 'claude/projects'], box);
      const [hit] = hitsOf(json.stdout);
      expect(hit?.match.start).toBe(said.indexOf('Needle'));
      expect(matched(hit as Hit)).toBe('Needle');
      const text = await run(['search', 'needle', 'claude/projects'], { ...box, env: { ...box.env, FORCE_COLOR: '1' } });
      expect(highlighted(text.stdout)).toEqual(['Needle']);
    });

    // What matches is unchanged: both sides are lower-cased, so "İstanbul" (i̇stanbul) matches İSTANBUL,
    // İstanbul and i̇stanbul but not Istanbul; the offsets slice out the original characters matched.
    it('slices out exactly the original text of a match that holds İ', async () => {
      box.write(`${sid(1)}.jsonl`, [
        user(1, null, 'İİ flights to İSTANBUL today'),
        assistant(2, 1, 'ok'),
        user(3, 2, 'a plain Istanbul here'),
        assistant(4, 3, 'ok'),
        user(5, 4, 'x i\u0307stanbul decomposed'),
        assistant(6, 5, 'ok'),
      ]);
      const dotted = hitsOf((await run(['search', '--format', 'json', 'İstanbul', 'claude/projects'], box)).stdout);
      expect(dotted.map(matched)).toEqual(['İSTANBUL', 'i\u0307stanbul']);
      expect(dotted[0]?.match).toEqual({ start: 14, end: 22 });
      expect(dotted[1]?.match).toEqual({ start: 2, end: 11 });
      // The same needle, written as it lower-cases.
      const decomposed = hitsOf((await run(['search', '--format', 'json', 'i\u0307stanbul', 'claude/projects'], box)).stdout);
      expect(decomposed.map(matched)).toEqual(['İSTANBUL', 'i\u0307stanbul']);
      // A needle that covers only part of what İ lower-cases to highlights the whole İ.
      const part = hitsOf((await run(['search', '--format', 'json', '\u0307stanbul', 'claude/projects'], box)).stdout);
      expect(part.map(matched)).toEqual(['İSTANBUL', '\u0307stanbul']);
      const plain = hitsOf((await run(['search', '--format', 'json', 'istanbul', 'claude/projects'], box)).stdout);
      expect(plain.map(matched)).toEqual(['Istanbul']);
      const text = await run(['search', 'İstanbul', 'claude/projects'], { ...box, env: { ...box.env, FORCE_COLOR: '1' } });
      expect(highlighted(text.stdout)).toEqual(['İSTANBUL', 'i\u0307stanbul']);
    });

    it('keeps ASCII offsets and the excerpt window as they were', async () => {
      const said = `${'lead '.repeat(12)}the Needle sits here ${'tail '.repeat(12)}`;
      box.write(`${sid(1)}.jsonl`, [user(1, null, said), assistant(2, 1, 'ok')]);
      const [hit] = hitsOf((await run(['search', '--format', 'json', 'nEEdle', 'claude/projects'], box)).stdout);
      expect(hit?.excerpt).toBe('…lead lead lead lead lead lead lead the Needle sits here tail tail tail tail tail tail…');
      expect(hit?.match).toEqual({ start: 40, end: 46 });
      expect(matched(hit as Hit)).toBe('Needle');
    });

    it('cuts the excerpt window (40 code units each side) between characters, never inside a surrogate pair', async () => {
      // The match starts at unit 51; 40 before is unit 11, the second half of 🎉 (units 10–11).
      const said = `${'a'.repeat(10)}🎉${'x'.repeat(39)}needle${'y'.repeat(39)}🎉 end`; // 40 after falls inside the second 🎉 too
      box.write(`${sid(1)}.jsonl`, [user(1, null, said), assistant(2, 1, 'ok')]);
      const [hit] = hitsOf((await run(['search', '--format', 'json', 'needle', 'claude/projects'], box)).stdout);
      expect(matched(hit as Hit)).toBe('needle');
      expect(hit?.excerpt).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
      expect(hit?.excerpt).toBe(`…${'x'.repeat(39)}needle${'y'.repeat(39)}…`);
    });
  });
});

