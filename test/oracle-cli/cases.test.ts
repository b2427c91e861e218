/**
 * The CLI model's unit cases (test/support/cli-cases.ts) run through the
 * real `claude -p --resume`: each case's expected rows are what the CLI
 * sends, so the unit tests pin the CLI's behaviour, not a reading of it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_CASES } from '../support/cli-cases.js';
import { askCli, loadedUuids, oracleAvailable } from './oracle.js';

const available = oracleAvailable();

describe.runIf(available.ok)('the CLI model unit cases, by the real CLI', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-cli-cases-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('sends exactly the rows each case expects', async () => {
    const files = CLI_CASES.map((c, i) => {
      const dir = path.join(tmp, String(i));
      fs.mkdirSync(dir);
      const file = path.join(dir, '11111111-2222-4333-8444-555555555555.jsonl');
      fs.writeFileSync(file, c.text());
      return file;
    });
    const answers = await askCli(files);
    const wrong: string[] = [];
    CLI_CASES.forEach((c, i) => {
      const got = loadedUuids(answers.get(files[i] as string) as never);
      const same = c.ordered === false ? new Set(got).size === c.loaded.length && c.loaded.every((u) => got.includes(u)) : JSON.stringify(got) === JSON.stringify(c.loaded);
      if (!same) wrong.push(`${c.name}: CLI sent ${got.length} rows (${got.map((u) => u.slice(0, 8)).join(' ')}), case expects ${c.loaded.length} (${c.loaded.map((u) => u.slice(0, 8)).join(' ')})`);
    });
    expect(wrong).toEqual([]);
  });
});

if (!available.ok) {
  describe('the CLI model unit cases, by the real CLI', () => {
    it.skip(`needs the CLI oracle: ${available.why}`, () => undefined);
  });
}
