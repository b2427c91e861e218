import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discover } from '../../src/core/discovery.js';

const A = '0a000000-0000-4000-8000-000000000000.jsonl';
const Z = 'ff000000-0000-4000-8000-000000000000.jsonl';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-discovery-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function paths(inputs: readonly string[]): { files: string[]; problems: string[] } {
  const d = discover(inputs, root);
  return { files: d.groups.flatMap((g) => g.files.map((f) => f.displayPath)).sort(), problems: d.problems.map((p) => p.message) };
}

describe('discover', () => {
  it('reads a file reached through a symbolic link once, whether the link sorts before or after it', () => {
    fs.mkdirSync(path.join(root, 'p'));
    fs.writeFileSync(path.join(root, 'p', Z), '{}\n');
    fs.symlinkSync(Z, path.join(root, 'p', A)); // sorts first
    fs.writeFileSync(path.join(root, 'p', A.replace('0a', '1a')), '{}\n');
    fs.symlinkSync(A.replace('0a', '1a'), path.join(root, 'p', Z.replace('ff', 'fe'))); // sorts after its target
    const { files, problems } = paths(['p']);
    expect(files).toEqual([`p/${A.replace('0a', '1a')}`, `p/${Z}`]);
    expect(problems).toEqual([
      `${path.join(root, 'p', A)}: skipped, a symbolic link to ${path.join(fs.realpathSync(root), 'p', Z)}, which is already being checked`,
      `${path.join(root, 'p', Z.replace('ff', 'fe'))}: skipped, a symbolic link to ${path.join(fs.realpathSync(root), 'p', A.replace('0a', '1a'))}, which is already being checked`,
    ]);
  });

  it('reads a linked file whose target is outside the walk', () => {
    fs.mkdirSync(path.join(root, 'elsewhere'));
    fs.writeFileSync(path.join(root, 'elsewhere', Z), '{}\n');
    fs.mkdirSync(path.join(root, 'p'));
    fs.symlinkSync(path.join(root, 'elsewhere', Z), path.join(root, 'p', A));
    expect(paths(['p'])).toEqual({ files: [`p/${A}`], problems: [] });
  });

  it('reads a file reached through a linked folder and a file link once, by its plain path', () => {
    fs.mkdirSync(path.join(root, 'elsewhere'));
    fs.writeFileSync(path.join(root, 'elsewhere', Z), '{}\n');
    fs.mkdirSync(path.join(root, 'p'));
    fs.symlinkSync(path.join(root, 'elsewhere', Z), path.join(root, 'p', A));
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(root, 'p', 'linked'));
    expect(paths(['p'])).toEqual({
      files: [`p/linked/${Z}`],
      problems: [`${path.join(root, 'p', A)}: skipped, a symbolic link to ${path.join(fs.realpathSync(root), 'elsewhere', Z)}, which is already being checked`],
    });
  });

  it('ends a walk through a folder link loop, with a note for the link', () => {
    fs.mkdirSync(path.join(root, 'p', 'q'), { recursive: true });
    fs.writeFileSync(path.join(root, 'p', 'q', A), '{}\n');
    fs.symlinkSync(path.join(root, 'p'), path.join(root, 'p', 'q', 'back'));
    fs.symlinkSync('self', path.join(root, 'p', 'self'));
    const { files, problems } = paths(['p']);
    expect(files).toEqual([`p/q/${A}`]);
    expect(problems).toEqual([
      `${path.join(root, 'p', 'q', 'back')}: skipped, a symbolic link to ${path.join(fs.realpathSync(root), 'p')}, which is already being checked`,
      `${path.join(root, 'p', 'self')}: too many levels of symbolic links (a link loop)`,
    ].sort());
  });

  it('says when a folder named holds no session file, but not for a folder an earlier input walked', () => {
    fs.mkdirSync(path.join(root, 'empty', 'deeper'), { recursive: true });
    fs.writeFileSync(path.join(root, 'empty', 'notes.txt'), 'x');
    fs.mkdirSync(path.join(root, 'full'));
    fs.writeFileSync(path.join(root, 'full', A), '{}\n');
    const d = discover(['empty', 'full', 'full'], root);
    expect(d.problems).toEqual([{ path: 'empty', message: 'no session file found under empty', explicit: true }]);
    expect(d.groups.map((g) => g.files.map((f) => f.displayPath))).toEqual([[`full/${A}`]]);
  });
});
