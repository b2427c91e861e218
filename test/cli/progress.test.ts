/**
 * The progress line: on a terminal's stderr only, for `check`, `sessions`,
 * `search`, `report` and the non-interactive `fix` runs; cleared before
 * anything else is written, so a diff, a hit or a summary never lands on
 * the line after it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/program.js';
import type { Io } from '../../src/io.js';
import { copyDemo, sandbox, type Sandbox } from '../support/cli.js';

const boxes: Sandbox[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) box.cleanup();
});

const CLEAR = '\r\u001b[2K';

async function onTerminal(argv: string[], stderrIsTTY: boolean): Promise<{ writes: Array<['out' | 'err', string]>; code: number }> {
  const box = sandbox();
  boxes.push(box);
  const project = copyDemo(box);
  // Not a transcript: a note on stderr in the middle of the walk.
  fs.writeFileSync(path.join(project, '50000000-0000-4000-8000-000000000000.jsonl'), 'plain text, not JSON\n');
  const writes: Array<['out' | 'err', string]> = [];
  const io: Io = {
    stdout: { write: (s) => void writes.push(['out', s]), isTTY: false },
    stderr: { write: (s) => void writes.push(['err', s]), isTTY: stderrIsTTY, columns: 120 },
    stdinIsTTY: false,
    env: box.env,
    cwd: box.root,
    now: () => Date.now(),
  };
  const code = await main([...argv, project], io);
  return { writes, code };
}

/** Every progress text shown was cleared before the next other write (stdout or a note), and at the end. */
function expectClearedBeforeOutput(writes: ReadonlyArray<['out' | 'err', string]>): void {
  let showing = false;
  for (const [stream, text] of writes) {
    if (stream === 'err' && text.startsWith(CLEAR)) showing = text.length > CLEAR.length;
    else expect(showing, `${stream} written over a progress line: ${JSON.stringify(text.slice(0, 60))}`).toBe(false);
  }
  expect(showing).toBe(false);
}

describe('progress on stderr', () => {
  for (const [argv, shown] of [
    [['fix', '--dry-run'], 'cclint: planning 1 of 5 sessions…'],
    [['fix', '--dry-run', '--format', 'json'], 'cclint: planning 1 of 5 sessions…'],
    [['fix', '--yes'], 'cclint: fixing 1 of 5 sessions…'],
    [['check'], 'cclint: checking 1 of 5 sessions…'],
    [['sessions'], 'cclint: reading 1 of 5 sessions…'],
    [['search', 'the'], 'cclint: searching 1 of 5 sessions…'],
    [['report', '--fixes'], 'cclint: reading 1 of 5 sessions…'],
  ] as const) {
    it(`${argv.join(' ')}: shown on a terminal and cleared before output`, async () => {
      const { writes } = await onTerminal([...argv], true);
      expect(writes.filter(([s]) => s === 'err').map(([, t]) => t)).toContain(`${CLEAR}${shown}`);
      expectClearedBeforeOutput(writes);
    });

    it(`${argv.join(' ')}: nothing when stderr is not a terminal`, async () => {
      const { writes } = await onTerminal([...argv], false);
      expect(writes.filter(([s, t]) => s === 'err' && t.includes(CLEAR))).toEqual([]);
    });
  }
});
