/**
 * Configuration as a user meets it on the command line: files found from
 * the working directory upward, the user-level file, ignorePatterns,
 * `--print-config`, and every mistake an exit 2 with a suggestion.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RULES } from '../../src/rules/index.js';
import { copyDemo, run, sandbox, type Sandbox } from '../support/cli.js';

const PHANTOM = 'b2fe508c-5391-4967-ad16-83d569d4f396.jsonl';

interface JsonReport {
  results: Array<{ filePath: string; messages: Array<{ ruleId: string; severity: string }> }>;
  summary: { files: number; errorCount: number; warningCount: number };
}

let box: Sandbox;
let work: string;
let projects: string;

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(value));
}

const check = async (args: string[], cwd = work) => run(['check', ...args], { env: box.env, cwd });
const report = (stdout: string): JsonReport => JSON.parse(stdout) as JsonReport;

beforeEach(() => {
  box = sandbox();
  // The sandbox's top folder stops the upward search: nothing above it counts.
  writeJson(path.join(box.root, '.cclintrc.json'), { root: true });
  work = path.join(box.root, 'work', 'deep', 'er');
  fs.mkdirSync(work, { recursive: true });
  projects = path.dirname(copyDemo(box));
});
afterEach(() => box.cleanup());

describe('config lookup from the command line', () => {
  it('applies a config file found in a folder above the working directory', async () => {
    const before = await check(['--format', 'json', projects]);
    expect(before.code).toBe(1);
    writeJson(path.join(box.root, 'work', 'cclint.config.json'), {
      $schema: 'https://example.org/cclintrc.schema.json',
      rules: { 'phantom-parent': 'warn', 'orphan-root': 1, 'duplicate-uuid': 0, 'invalid-json': 'off' },
    });
    const after = await check(['--format', 'json', projects]);
    expect(after.code).toBe(0);
    expect(report(after.stdout).summary).toEqual({ files: 4, errorCount: 0, warningCount: 2, infoCount: 23 });
  });

  it('uses the user-level file when no project file applies', async () => {
    fs.rmSync(path.join(box.root, '.cclintrc.json'));
    writeJson(path.join(box.env.XDG_CONFIG_HOME as string, 'cclint', 'config.json'), { rules: { 'phantom-parent': 'off' } });
    const r = await check(['--format', 'json', path.join(projects, '-home-dev-webapp', PHANTOM)]);
    expect(r.code).toBe(0);
    expect(report(r.stdout).results[0]?.messages.map((m) => m.ruleId)).not.toContain('phantom-parent');
  });

  it('--print-config shows the files, every rule, the patterns and whether the file is left out', async () => {
    writeJson(path.join(box.root, 'work', '.cclintrc.json'), { rules: { 'string-content': 'off' }, ignorePatterns: ['agent-*.jsonl'] });
    const r = await check(['--print-config', 'agent-1.jsonl', '--rule', 'phantom-parent=warn', '--rule', 'orphan-root']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      configFiles: [path.join(box.root, '.cclintrc.json'), path.join(box.root, 'work', '.cclintrc.json')],
      rules: Object.fromEntries(
        RULES.map(({ meta }) => [meta.id, meta.id === 'phantom-parent' ? 'warning' : meta.id === 'orphan-root' ? 'error' : 'off']),
      ),
      ignorePatterns: ['agent-*.jsonl'],
      ignored: true,
    });
    const plain = await check(['--print-config', 'session.jsonl']);
    expect((JSON.parse(plain.stdout) as { rules: Record<string, string>; ignored: boolean }).rules['string-content']).toBe('off');
    expect((JSON.parse(plain.stdout) as { ignored: boolean }).ignored).toBe(false);
  });
});

describe('ignorePatterns', () => {
  it('leave out matching folders and files while walking, and say so for a file named on the command line', async () => {
    writeJson(path.join(box.root, 'work', '.cclintrc.json'), { ignorePatterns: [PHANTOM, '-home-other/'] });
    fs.cpSync(path.join(projects, '-home-dev-webapp'), path.join(projects, '-home-other'), { recursive: true });
    const walked = await check(['--format', 'json', projects]);
    const files = report(walked.stdout).results.map((x) => path.relative(projects, x.filePath));
    expect(files).toHaveLength(3);
    expect(files.every((f) => f.startsWith('-home-dev-webapp') && !f.endsWith(PHANTOM))).toBe(true);
    const named = await check(['--format', 'json', path.join(projects, '-home-dev-webapp', PHANTOM)]);
    expect(named.stderr).toBe(`cclint: ${path.join(projects, '-home-dev-webapp', PHANTOM)}: ignored by ignorePatterns in the config; not checked\n`);
    expect(report(named.stdout).results).toEqual([]);
  });
});

describe('--rule and --config beyond check', () => {
  interface Row {
    sessionId: string;
    errors: number;
    warnings: number;
  }
  const sessions = async (args: string[]): Promise<{ code: number; rows: Row[] }> => {
    const r = await run(['sessions', '--format', 'json', ...args, projects], { env: box.env, cwd: work });
    return { code: r.code, rows: r.code === 0 ? (JSON.parse(r.stdout) as Row[]) : [] };
  };
  const errorsBySession = (rows: Row[]): Record<string, number> => Object.fromEntries(rows.map((r) => [r.sessionId.slice(0, 8), r.errors]));

  it('sessions: --rule counts only that rule in the findings columns, --config takes rules and ignorePatterns from the file named', async () => {
    const all = await sessions([]);
    expect(errorsBySession(all.rows)).toEqual({ '30628611': 2, '08f63ab4': 2, b2fe508c: 1, dde4dc22: 0 });
    const one = await sessions(['--rule', 'phantom-parent']);
    expect(errorsBySession(one.rows)).toEqual({ '30628611': 0, '08f63ab4': 0, b2fe508c: 1, dde4dc22: 0 });
    const named = path.join(box.root, 'elsewhere', 'mine.json');
    writeJson(named, { rules: { 'invalid-json': 'off' }, ignorePatterns: [PHANTOM] });
    const configured = await sessions(['--config', named]);
    expect(errorsBySession(configured.rows)).toEqual({ '30628611': 0, '08f63ab4': 2, dde4dc22: 0 });
    expect((await sessions(['--rule', 'phantom-parnt'])).code).toBe(2);
  });

  it('search: --config leaves out what its ignorePatterns name; report: --rule runs only that rule', async () => {
    const named = path.join(box.root, 'elsewhere', 'mine.json');
    writeJson(named, { ignorePatterns: ['-home-dev-webapp/'] });
    const everywhere = await run(['search', 'login', projects], { env: box.env, cwd: work });
    expect(everywhere.code).toBe(0);
    const ignored = await run(['search', 'login', '--config', named, projects], { env: box.env, cwd: work });
    expect([ignored.code, ignored.stderr]).toEqual([2, `cclint: every session file under ${projects} is left out by ignorePatterns in the config\n`]);
    const page = path.join(box.root, 'page.html');
    const r = await run(['report', '--rule', 'phantom-parent', '-o', page, projects], { env: box.env, cwd: work });
    expect(r.code).toBe(0);
    const html = fs.readFileSync(page, 'utf8');
    expect(html).toContain('phantom-parent');
    expect(html).not.toContain('duplicate-uuid');
  });
});

describe('mistakes are errors (exit 2) with a suggestion', () => {
  it('an unknown rule in --rule', async () => {
    const r = await check(['--rule', 'phantom-parnt', projects]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cclint: --rule phantom-parnt: unknown rule "phantom-parnt" (did you mean "phantom-parent"?) (see `cclint rules`)\n');
    expect(r.stdout).toBe('');
  });

  it('an unknown key or rule in a config file', async () => {
    const file = path.join(box.root, 'work', '.cclintrc.json');
    writeJson(file, { ignorePattern: ['x'] });
    const key = await check([projects]);
    expect(key.code).toBe(2);
    expect(key.stderr).toBe(
      `cclint: config ${file}: unknown key "ignorePattern" (did you mean "ignorePatterns"?); known keys: $schema, root, rules, ignorePatterns\n`,
    );
    writeJson(file, { rules: { 'orphan-roots': 'off' } });
    const rule = await check([projects]);
    expect(rule.code).toBe(2);
    expect(rule.stderr).toBe(`cclint: config ${file}: unknown rule "orphan-roots" (did you mean "orphan-root"?) (see \`cclint rules\`)\n`);
  });
});
