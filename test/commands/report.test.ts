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

  it('exit 2 for a path that is not there, and never writes a .jsonl file', async () => {
    expect((await run(['report', 'nowhere', '-o', path.join(box.dir, 'r.html')], box)).code).toBe(2);
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'a'), assistant(2, 1, 'b')]);
    const r = await run(['report', 'claude/projects', '-o', 'out.jsonl'], box);
    expect(r.code).toBe(2);
    expect(fs.existsSync(path.join(box.dir, 'out.jsonl'))).toBe(false);
  });
});
