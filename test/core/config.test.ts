/**
 * Config lookup and validation (README "Configuration"): project files found
 * upward from the working directory, nearer over farther, stopping at
 * `"root": true`; the user-level file only when no project file is found;
 * ESLint's severities; ignorePatterns in .gitignore syntax; every mistake an
 * error (exit 2) with a suggestion.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyRuleFlags, configJsonSchema, ignoreFilter, loadConfig, userConfigPath } from '../../src/core/config.js';
import { ConfigError } from '../../src/core/errors.js';
import { RULES } from '../../src/rules/index.js';

const KNOWN = new Set(['phantom-parent', 'orphan-root', 'string-content']);
let tmp: string;
let env: NodeJS.ProcessEnv;

function write(relative: string, value: unknown): string {
  const file = path.join(tmp, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

const load = (cwd: string, explicit?: string) => loadConfig(explicit, path.join(tmp, cwd), KNOWN, env);
const rulesOf = (cwd: string) => Object.fromEntries(load(cwd).rules);

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigError');
}

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-config-')));
  // The outermost folder of the test stops the search, so nothing above the
  // temporary folder (a stray config in /tmp) can leak in.
  write('.cclintrc.json', { root: true });
  env = { HOME: path.join(tmp, 'home'), XDG_CONFIG_HOME: path.join(tmp, 'xdg') };
  fs.mkdirSync(path.join(tmp, 'a', 'b', 'c'), { recursive: true });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('config lookup', () => {
  it('finds files upward from the working directory, nearer ones overriding farther ones', () => {
    write('a/.cclintrc.json', { rules: { 'phantom-parent': 'warn', 'orphan-root': 'off' } });
    write('a/b/cclint.config.json', { rules: { 'phantom-parent': 'info' } });
    expect(rulesOf('a/b/c')).toEqual({ 'phantom-parent': 'info', 'orphan-root': 'off' });
    expect(load('a/b/c').files).toEqual([
      path.join(tmp, '.cclintrc.json'),
      path.join(tmp, 'a', '.cclintrc.json'),
      path.join(tmp, 'a', 'b', 'cclint.config.json'),
    ]);
    expect(load('a/b/c').source).toBe(path.join(tmp, 'a', 'b', 'cclint.config.json'));
  });

  it('stops after a file with "root": true', () => {
    write('a/.cclintrc.json', { rules: { 'orphan-root': 'off' } });
    write('a/b/.cclintrc.json', { root: true, rules: { 'phantom-parent': 'warn' } });
    expect(rulesOf('a/b/c')).toEqual({ 'phantom-parent': 'warning' });
    expect(load('a/b/c').files).toEqual([path.join(tmp, 'a', 'b', '.cclintrc.json')]);
  });

  it('refuses two config files in one folder', () => {
    write('a/.cclintrc.json', {});
    write('a/cclint.config.json', {});
    expect(errorOf(() => load('a/b'))).toBe(`${path.join(tmp, 'a')} holds both .cclintrc.json and cclint.config.json; keep one`);
  });

  it('uses the user-level file under $XDG_CONFIG_HOME/cclint only when no project file is found', () => {
    fs.rmSync(path.join(tmp, '.cclintrc.json'));
    write('xdg/cclint/config.json', { rules: { 'string-content': 'off' } });
    // The search goes on up to the file-system root here, which holds no
    // cclint config on any machine the tests run on.
    const found = load('a/b');
    expect(found.files).toEqual([path.join(tmp, 'xdg', 'cclint', 'config.json')]);
    expect(Object.fromEntries(found.rules)).toEqual({ 'string-content': 'off' });
    write('a/.cclintrc.json', { rules: { 'orphan-root': 'warn' } });
    expect(load('a/b').files).not.toContain(path.join(tmp, 'xdg', 'cclint', 'config.json'));
  });

  it('puts the user-level file under ~/.config/cclint without XDG_CONFIG_HOME, or with a relative one', () => {
    expect(userConfigPath({ HOME: '/home/me' })).toBe('/home/me/.config/cclint/config.json');
    expect(userConfigPath({ HOME: '/home/me', XDG_CONFIG_HOME: 'relative' })).toBe('/home/me/.config/cclint/config.json');
    expect(userConfigPath({ HOME: '/home/me', XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/cclint/config.json');
  });

  it('takes an explicit --config file alone, relative to the working directory', () => {
    write('a/.cclintrc.json', { rules: { 'orphan-root': 'off' } });
    write('a/b/mine.json', { rules: { 'phantom-parent': 1 } });
    expect(Object.fromEntries(load('a/b', 'mine.json').rules)).toEqual({ 'phantom-parent': 'warning' });
    expect(errorOf(() => load('a/b', 'missing.json'))).toBe('cannot read config missing.json: no such file or folder');
  });
});

describe('config contents', () => {
  it('accepts ESLint severities: off, info, warn, warning, error, 0, 1, 2', () => {
    write('a/.cclintrc.json', { $schema: './schema.json', rules: { 'phantom-parent': 0, 'orphan-root': 2, 'string-content': 'warn' } });
    expect(rulesOf('a')).toEqual({ 'phantom-parent': 'off', 'orphan-root': 'error', 'string-content': 'warning' });
    write('a/.cclintrc.json', { rules: { 'phantom-parent': 'info', 'orphan-root': 1, 'string-content': 'warning' } });
    expect(rulesOf('a')).toEqual({ 'phantom-parent': 'info', 'orphan-root': 'warning', 'string-content': 'warning' });
  });

  it('rejects an unknown severity, key or rule id, suggesting the closest', () => {
    const file = write('a/.cclintrc.json', { rules: { 'phantom-parent': 'loud' } });
    expect(errorOf(() => load('a'))).toBe(`config ${file} is invalid: rules.phantom-parent: must be off, info, warn, warning, error, 0, 1 or 2`);
    write('a/.cclintrc.json', { rules: { 'phantom-parent': 3 } });
    expect(errorOf(() => load('a'))).toContain('rules.phantom-parent: must be off, info, warn, warning, error, 0, 1 or 2');
    write('a/.cclintrc.json', { rule: {} });
    expect(errorOf(() => load('a'))).toBe(`config ${file}: unknown key "rule" (did you mean "rules"?); known keys: $schema, root, rules, ignorePatterns`);
    write('a/.cclintrc.json', { rules: { 'phantom-parnet': 'off' } });
    expect(errorOf(() => load('a'))).toBe(`config ${file}: unknown rule "phantom-parnet" (did you mean "phantom-parent"?) (see \`cclint rules\`)`);
    write('a/.cclintrc.json', { rules: { 'something-else-entirely': 'off' } });
    expect(errorOf(() => load('a'))).toBe(`config ${file}: unknown rule "something-else-entirely" (see \`cclint rules\`)`);
    write('a/.cclintrc.json', '{"rules": ');
    expect(errorOf(() => load('a'))).toMatch(/is not valid JSON/);
    write('a/.cclintrc.json', '[]');
    expect(errorOf(() => load('a'))).toBe(`config ${file} must hold one JSON object`);
    write('a/.cclintrc.json', { root: 'yes' });
    expect(errorOf(() => load('a'))).toContain('root: ');
  });

  it('reads a config that starts with a byte-order mark (as some Windows editors save JSON)', () => {
    write('a/.cclintrc.json', `\uFEFF${JSON.stringify({ rules: { 'phantom-parent': 'warn' } })}`);
    expect(rulesOf('a')).toEqual({ 'phantom-parent': 'warning' });
  });

  it('--rule flags name known rules (with a suggestion) and take the same severities', () => {
    const base = load('a');
    expect(Object.fromEntries(applyRuleFlags(base, ['orphan-root=warn', 'phantom-parent=2'], KNOWN).rules)).toEqual({
      'orphan-root': 'warning',
      'phantom-parent': 'error',
    });
    expect(errorOf(() => applyRuleFlags(base, ['orphan-rot'], KNOWN))).toBe(
      '--rule orphan-rot: unknown rule "orphan-rot" (did you mean "orphan-root"?) (see `cclint rules`)',
    );
    expect(errorOf(() => applyRuleFlags(base, ['orphan-root=3'], KNOWN))).toBe(
      '--rule orphan-root=3: severity must be off, info, warn, warning, error, 0, 1 or 2',
    );
  });
});

describe('ignorePatterns', () => {
  it('match in .gitignore syntax relative to the config file, else to the folder being checked', () => {
    write('a/.cclintrc.json', { ignorePatterns: ['-tmp-*/', 'agent-*.jsonl', '/top.jsonl', '!agent-keep.jsonl'] });
    const filter = ignoreFilter(load('a/b').ignorePatterns);
    expect(filter).toBeDefined();
    const ignored = (relative: string, folder = false, root = path.join(tmp, 'a')) =>
      filter?.(path.join(tmp, relative), folder, root) ?? false;
    expect(ignored('a/projects/-tmp-x', true)).toBe(true);
    expect(ignored('a/projects/-home-me', true)).toBe(false);
    expect(ignored('a/projects/-home-me/agent-1.jsonl')).toBe(true);
    expect(ignored('a/projects/-home-me/agent-keep.jsonl')).toBe(false);
    expect(ignored('a/top.jsonl')).toBe(true);
    expect(ignored('a/b/top.jsonl')).toBe(false);
    // Outside the config's folder: relative to the folder being checked.
    const elsewhere = path.join(tmp, 'claude', 'projects');
    expect(ignored('claude/projects/-tmp-y', true, elsewhere)).toBe(true);
    expect(ignored('claude/projects/top.jsonl', false, elsewhere)).toBe(true);
    expect(ignored('claude/projects/-home-me/s.jsonl', false, elsewhere)).toBe(false);
  });

  it('from the user-level file, match relative to the folder being checked', () => {
    fs.rmSync(path.join(tmp, '.cclintrc.json'));
    write('xdg/cclint/config.json', { ignorePatterns: ['/-tmp-*/'] });
    const patterns = load('a').ignorePatterns.filter((p) => p.file.endsWith('config.json'));
    expect(patterns).toEqual([{ pattern: '/-tmp-*/', base: undefined, file: path.join(tmp, 'xdg', 'cclint', 'config.json') }]);
    const filter = ignoreFilter(patterns);
    const root = path.join(tmp, 'claude', 'projects');
    expect(filter?.(path.join(root, '-tmp-a'), true, root)).toBe(true);
    expect(filter?.(path.join(root, '-home', '-tmp-a'), true, root)).toBe(false);
  });

  it('leave nothing out when there are none', () => {
    expect(ignoreFilter([])).toBeUndefined();
  });
});

describe('the shipped JSON Schema', () => {
  const shipped = JSON.parse(
    fs.readFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '../../schema/cclintrc.schema.json'), 'utf8'),
  ) as { properties: { rules: { properties: Record<string, { enum: unknown[] }> } } };

  it('is generated from the registry and the loader (else run `npm run docs`)', () => {
    expect(shipped).toEqual(configJsonSchema(RULES.map((r) => r.meta)));
  });

  it('names every rule and the severities the loader accepts', () => {
    expect(Object.keys(shipped.properties.rules.properties)).toEqual(RULES.map((r) => r.meta.id));
    expect(shipped.properties.rules.properties['phantom-parent']?.enum).toEqual(['off', 'info', 'warn', 'warning', 'error', 0, 1, 2]);
  });
});
