import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, iso, jsonl, PROJECT_FOLDER, resetClock, T0, user, uuidOf } from '../helpers/records.js';
import { run, sandbox, writeSession, type Sandbox } from '../support/cli.js';

/**
 * A prompt whose parent was never written, typed 3 s after an answer that a
 * later exchange (written before it in the file) also continues: resume
 * would bridge it to that answer, the previous row in the file is the end
 * of the later exchange. Which one it continues is a guess.
 */
function guessedSession(): string {
  resetClock();
  return jsonl([
    user('u1'),
    assistant('a1', { parent: 'u1' }),
    user('u2', { parent: 'a1', gapMs: 300_000 }),
    assistant('a2', { parent: 'u2' }),
    user('x', { parent: 'ghost', timestamp: iso(T0 + 4_000) }),
    assistant('a3', { parent: 'x', timestamp: iso(T0 + 5_000) }),
  ]);
}

describe('cclint fix, choosing between candidate rows', () => {
  let box: Sandbox;
  let file: string;
  beforeEach(() => {
    box = sandbox();
    file = writeSession(box, PROJECT_FOLDER, `${uuidOf('session')}.jsonl`, guessedSession());
  });
  afterEach(() => box.cleanup());

  const parentOfLine5 = (): unknown => (JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[4] as string) as { parentUuid: unknown }).parentUuid;

  it('lists the candidates and applies the one picked by number', async () => {
    const r = await run(['fix', '--no-color', file], { env: box.env, cwd: box.root, tty: true, answers: ['2'] });
    expect(r.stdout).toContain(
      [
        '[unsafe] Relink parentUuid to assistant 0901dc63 on line 2',
        'The right row is a guess; candidates:',
        '  1) line 2, assistant, 2026-01-05T03:00:01.000Z "reply a1"  (proposed)',
        '  2) line 4, assistant, 2026-01-05T03:05:02.000Z "reply a2"',
      ].join('\n'),
    );
    expect(r.stdout).toContain('Apply this unsafe fix? [y,N,1-2,a,d,q,?]');
    expect(parentOfLine5()).toBe(uuidOf('a2'));
    expect(r.code).toBe(0);
  });

  it('applies the proposed row on y or 1, and nothing on Enter', async () => {
    const original = fs.readFileSync(file);
    const declined = await run(['fix', file], { env: box.env, cwd: box.root, tty: true, answers: [''] });
    expect(declined.stdout).toContain('applied 0 fix(es) in 0 of 1 file(s)\n');
    expect(declined.code).toBe(0); // resume bridges this break, so it is a warning
    expect(fs.readFileSync(file)).toEqual(original);
    const picked = await run(['fix', file], { env: box.env, cwd: box.root, tty: true, answers: ['1'] });
    expect(picked.code).toBe(0);
    expect(parentOfLine5()).toBe(uuidOf('a1'));
  });
});
