/**
 * Child process of sigkill.test.ts, run from the TypeScript sources through
 * ts-register.mjs: commits a plan (old bytes = the file, new bytes = a given
 * file) with the real node port, and reports on stdout when it starts the
 * commit ("ready"), when it starts the atomic write ("writing") and when
 * the rename returned ("written"), so the parent can SIGKILL it at chosen moments.
 *
 * Usage: node --import ./test/repair/ts-register.mjs sigkill-child.ts <target> <after-file> <cclint-home> <config-dir> <projects-root>
 */
import fs from 'node:fs';
import type { FsPort } from '../../src/repair/fs-port.js';
import { nodeFs } from '../../src/repair/fs-port.js';
import { commitPlan } from '../../src/repair/write.js';
import { makePlan } from './fixture.js';

const [target, afterFile, home, configDir, projectsRoot] = process.argv.slice(2);
if (target === undefined || afterFile === undefined || home === undefined || configDir === undefined || projectsRoot === undefined) {
  throw new Error('usage: sigkill-child.ts <target> <after-file> <cclint-home> <config-dir> <projects-root>');
}
const say = (text: string): void => void fs.writeSync(1, `${text}\n`);

const real = nodeFs();
const port: FsPort = {
  ...real,
  writeNewFile(file, data, options) {
    if (file.endsWith('.tmp')) say('writing');
    real.writeNewFile(file, data, options);
  },
  rename(from, to) {
    real.rename(from, to);
    say('written');
  },
};
const plan = makePlan(target, fs.readFileSync(target), fs.readFileSync(afterFile));
say('ready');
const entry = commitPlan(plan, {
  fs: port,
  env: { HOME: home, CCLINT_HOME: home, CLAUDE_CONFIG_DIR: configDir },
  decidedBy: 'yes',
  projectsRoot,
});
say(`done ${entry.id}`);
