import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, jsonl, PROJECT_FOLDER, resetClock, user, uuidOf } from '../helpers/records.js';
import { run, sandbox, writeSession, type Sandbox } from '../support/cli.js';

describe('sessions --format json: apiValid', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('is false for a session whose resumed request the API rejects (a prompt stored as ""), true for a healthy one', async () => {
    resetClock();
    writeSession(box, PROJECT_FOLDER, `${uuidOf('healthy')}.jsonl`, jsonl([user('h1', { sessionId: uuidOf('healthy') }), assistant('h2', { parent: 'h1', sessionId: uuidOf('healthy') })]));
    const stuck = uuidOf('stuck');
    writeSession(
      box,
      PROJECT_FOLDER,
      `${stuck}.jsonl`,
      jsonl([
        user('s1', { sessionId: stuck }),
        assistant('s2', { parent: 's1', sessionId: stuck }),
        user('s3', { parent: 's2', content: '', sessionId: stuck }),
        assistant('s4', { parent: 's3', sessionId: stuck }),
      ]),
    );
    const r = await run(['sessions', '--format', 'json'], { env: box.env, cwd: box.root });
    const rows = JSON.parse(r.stdout) as Array<{ sessionId: string; apiValid: boolean | null }>;
    expect(Object.fromEntries(rows.map((row) => [row.sessionId, row.apiValid]))).toEqual({ [uuidOf('healthy')]: true, [stuck]: false });
  });
});
