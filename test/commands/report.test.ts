import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, assistant, run, sandbox, sid, user } from './fixture.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe('cclint report (the page itself; test/report/ opens it in Chromium)', () => {
  it('keeps a long session small: a long run is drawn at its ends, and counts what it leaves undrawn', async () => {
    const rows: Array<Record<string, unknown>> = [user(1, null, 'start', { at: 0 })];
    for (let n = 2; n <= 6000; n++) rows.push(n % 2 === 0 ? assistant(n, n - 1, `answer ${n} ${'x'.repeat(200)}`, { at: n }) : user(n, n - 1, `prompt ${n}`, { at: n }));
    box.write(`${sid(1)}.jsonl`, rows);
    const out = path.join(box.dir, 'r.html');
    const r = await run(['report', 'claude/projects', '-o', out], box);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(`cclint: report written to ${out} (1 session)\n`);
    const html = fs.readFileSync(out, 'utf8');
    const drawn = html.match(/data-loaded="1"/g)?.length ?? 0;
    const undrawn = Number(/data-loaded-undrawn="(\d+)"/.exec(html)?.[1]);
    expect(drawn).toBe(2 * 3 + 2 * 200);
    expect(drawn + undrawn).toBe(6000);
    expect(html.length).toBeLessThan(400_000);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('marks a session whose resumed request the API rejects: an api column in the table, the rules in its header', async () => {
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'fine', { at: 0 }), assistant(2, 1, 'ok', { at: 1 })]);
    // A prompt stored as "" after an answer: the API answers 400 (text content blocks must be non-empty).
    box.write(`${sid(2)}.jsonl`, [user(11, null, 'start', { at: 2, session: sid(2) }), assistant(12, 11, 'ok', { at: 3, session: sid(2) }), user(13, 12, '', { at: 4, session: sid(2) }), assistant(14, 13, 'ok', { at: 5, session: sid(2) })]);
    const out = path.join(box.dir, 'r.html');
    expect((await run(['report', 'claude/projects', '-o', out], box)).code).toBe(0);
    const html = fs.readFileSync(out, 'utf8');
    expect(html).toContain('<th class="num" title="400: the first request after claude --resume would be rejected (API Error 400)">api</th>');
    const rows = html.match(/<tr><td data-v="[^"]*"><code>[^<]*<\/code><\/td>.*<\/tr>/g) ?? [];
    expect(rows.map((r) => [/<code>([^<]*)/.exec(r)?.[1], /<td class="num[^"]*" data-v="([01])">(400)?<\/td>/.exec(r)?.slice(1)])).toEqual([
      [sid(2).slice(0, 8), ['1', '400']],
      [sid(1).slice(0, 8), ['0', undefined]],
    ]);
    expect(html).toContain(`data-session="${sid(2)}" data-file=`);
    expect(html).toMatch(new RegExp(`data-session="${sid(2)}"[^>]* data-api-valid="false">`));
    expect(html).toMatch(new RegExp(`data-session="${sid(1)}"[^>]* data-api-valid="true">`));
    expect(html).toContain('<div class="meta api"><span class="bad">resumed request fails at the API (400): <code>empty-text</code> (line 3)</span></div>');
    expect(html.match(/class="meta api"/g)).toHaveLength(1);
    // All healthy: no api column.
    fs.rmSync(path.join(box.dir, 'claude/projects', '-home-u-proj', `${sid(2)}.jsonl`));
    expect((await run(['report', 'claude/projects', '-o', out], box)).code).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).not.toContain('>api</th>');
  });

  it('exit 2 for a path that is not there, and never writes a .jsonl file', async () => {
    expect((await run(['report', 'nowhere', '-o', path.join(box.dir, 'r.html')], box)).code).toBe(2);
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'a'), assistant(2, 1, 'b')]);
    const r = await run(['report', 'claude/projects', '-o', 'out.jsonl'], box);
    expect(r.code).toBe(2);
    expect(fs.existsSync(path.join(box.dir, 'out.jsonl'))).toBe(false);
  });
});
