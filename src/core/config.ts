/**
 * Configuration, found the way ESLint users expect:
 *
 * - project files, `.cclintrc.json` or `cclint.config.json`, searched from
 *   the working directory upward to the file-system root, stopping after a
 *   file that says `"root": true`; nearer files override farther ones;
 * - a user-level file, `$XDG_CONFIG_HOME/cclint/config.json` (default
 *   `~/.config/cclint/config.json`), used only when no project file is found
 *   (ESLint's personal config);
 * - `--config <file>` instead of both.
 *
 * Everything is validated at load time, so a typo fails the run up front
 * (exit 2) with a readable line and a did-you-mean, never half-way through a
 * scan: unknown keys, unknown rule ids, unknown severities.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { describeFsError } from './discovery.js';
import { ConfigError } from './errors.js';
import { readWholeFile } from './reader.js';
import type { SeveritySetting } from './types.js';

/** Project config file names, in the order they are looked for in one folder. */
export const PROJECT_CONFIG_NAMES = ['.cclintrc.json', 'cclint.config.json'] as const;

/** The user-level config file, inside `$XDG_CONFIG_HOME/cclint/`. */
export const USER_CONFIG_NAME = 'config.json';

/** Every severity a config or `--rule id=severity` may give, and what each means. */
export const SEVERITY_ALIASES: ReadonlyMap<string | number, SeveritySetting> = new Map<string | number, SeveritySetting>([
  ['off', 'off'],
  ['info', 'info'],
  ['warn', 'warning'],
  ['warning', 'warning'],
  ['error', 'error'],
  [0, 'off'],
  [1, 'warning'],
  [2, 'error'],
]);

const CONFIG_KEYS = ['$schema', 'root', 'rules', 'ignorePatterns'] as const;

/**
 * The config schema, built on first use: most runs have no config file, and
 * loading zod costs more start-up time than the rest of a small check.
 */
function configSchema() {
  const { z: zod } = createRequire(import.meta.url)('zod') as typeof import('zod');
  const severity = zod.union([zod.enum(['off', 'info', 'warn', 'warning', 'error']), zod.literal(0), zod.literal(1), zod.literal(2)], {
    error: 'must be off, info, warn, warning, error, 0, 1 or 2',
  });
  return zod.strictObject({
    $schema: zod.string().optional(),
    root: zod.boolean().optional(),
    rules: zod.record(zod.string(), severity).optional(),
    ignorePatterns: zod.array(zod.string()).optional(),
  });
}

export type CclintConfig = z.infer<ReturnType<typeof configSchema>>;

/** An `ignorePatterns` entry with the folder it is relative to. */
export interface IgnorePattern {
  readonly pattern: string;
  /** The folder of the config file that holds it; undefined for the user-level file. */
  readonly base: string | undefined;
  readonly file: string;
}

export interface ResolvedConfig {
  readonly rules: ReadonlyMap<string, SeveritySetting>;
  /** The nearest file the settings came from, for messages. */
  readonly source: string | undefined;
  /** Every file that contributed, farthest first. */
  readonly files: readonly string[];
  readonly ignorePatterns: readonly IgnorePattern[];
}

const EMPTY: ResolvedConfig = { rules: new Map(), source: undefined, files: [], ignorePatterns: [] };

function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** The user-level config file's path (whether or not it exists). */
export function userConfigPath(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  const base = xdg !== undefined && xdg !== '' && path.isAbsolute(xdg) ? xdg : path.join(homeOf(env), '.config');
  return path.join(base, 'cclint', USER_CONFIG_NAME);
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
}

/** One folder's project config file, or undefined; two in one folder is an error. */
function configFileIn(dir: string): string | undefined {
  const present = PROJECT_CONFIG_NAMES.map((name) => path.join(dir, name)).filter((file) => {
    try {
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
  if (present.length > 1) {
    throw new ConfigError(`${dir} holds both ${PROJECT_CONFIG_NAMES.join(' and ')}; keep one`);
  }
  return present[0];
}

/** A config file, parsed and checked: unknown keys, rule ids and severities fail with a suggestion. */
function readConfigFile(file: string, knownRules: ReadonlySet<string>, shown = file): CclintConfig {
  let text: string;
  try {
    text = readWholeFile(file).toString('utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config ${describeFsError(error, shown)}`);
  }
  let json: unknown;
  try {
    // A byte-order mark, which some editors put first, is no JSON but no mistake either.
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ConfigError(`config ${shown} is not valid JSON: ${(error as Error).message}`);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new ConfigError(`config ${shown} must hold one JSON object`);
  }
  for (const key of Object.keys(json)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      throw new ConfigError(`config ${shown}: unknown key "${key}"${didYouMean(key, CONFIG_KEYS)}; known keys: ${CONFIG_KEYS.join(', ')}`);
    }
  }
  const rules = (json as { rules?: unknown }).rules;
  if (rules !== null && typeof rules === 'object' && !Array.isArray(rules)) {
    for (const id of Object.keys(rules)) {
      if (!knownRules.has(id)) {
        throw new ConfigError(`config ${shown}: unknown rule "${id}"${didYouMean(id, knownRules)} (see \`cclint rules\`)`);
      }
    }
  }
  const parsed = configSchema().safeParse(json);
  if (!parsed.success) throw new ConfigError(`config ${shown} is invalid: ${formatIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * The config files that apply in `cwd`, farthest first: project files
 * upward to a `"root": true` one, else the user-level file.
 */
function findConfigFiles(cwd: string, env: NodeJS.ProcessEnv, knownRules: ReadonlySet<string>): Array<{ file: string; config: CclintConfig; user: boolean }> {
  const found: Array<{ file: string; config: CclintConfig; user: boolean }> = [];
  for (let dir = path.resolve(cwd); ; ) {
    const file = configFileIn(dir);
    if (file !== undefined) {
      const config = readConfigFile(file, knownRules);
      found.unshift({ file, config, user: false });
      if (config.root === true) break;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (found.length > 0) return found;
  const user = userConfigPath(env);
  if (!fs.existsSync(user)) return [];
  return [{ file: user, config: readConfigFile(user, knownRules), user: true }];
}

/**
 * The settings for a run in `cwd`: an explicit `--config` file alone, or
 * the project files found upward (else the user-level file), merged with
 * nearer files winning.
 */
export function loadConfig(
  explicit: string | undefined,
  cwd: string,
  knownRules: ReadonlySet<string>,
  env: NodeJS.ProcessEnv,
): ResolvedConfig {
  const layers =
    explicit === undefined
      ? findConfigFiles(cwd, env, knownRules)
      : [{ file: path.resolve(cwd, explicit), config: readConfigFile(path.resolve(cwd, explicit), knownRules, explicit), user: false }];
  if (layers.length === 0) return EMPTY;
  const rules = new Map<string, SeveritySetting>();
  const ignorePatterns: IgnorePattern[] = [];
  for (const { file, config, user } of layers) {
    for (const [id, setting] of Object.entries(config.rules ?? {})) rules.set(id, SEVERITY_ALIASES.get(setting) as SeveritySetting);
    for (const pattern of config.ignorePatterns ?? []) ignorePatterns.push({ pattern, base: user ? undefined : path.dirname(file), file });
  }
  return { rules, source: layers[layers.length - 1]?.file, files: layers.map((l) => l.file), ignorePatterns };
}

/** `--rule id` / `--rule id=severity` flags on top of the file's settings. */
/** Throws {@link ConfigError} (exit 2) for a `--rule` flag naming no rule, with the closest id. */
export function assertKnownRule(flag: string, id: string, knownRules: ReadonlySet<string>): void {
  if (!knownRules.has(id)) {
    throw new ConfigError(`--rule ${flag}: unknown rule "${id}"${didYouMean(id, knownRules)} (see \`cclint rules\`)`);
  }
}

export function applyRuleFlags(
  config: ResolvedConfig,
  flags: readonly string[],
  knownRules: ReadonlySet<string>,
): ResolvedConfig & { readonly only: ReadonlySet<string> | undefined } {
  if (flags.length === 0) return { ...config, only: undefined };
  const rules = new Map(config.rules);
  const only = new Set<string>();
  for (const flag of flags) {
    const [id = '', setting] = flag.split('=', 2);
    assertKnownRule(flag, id, knownRules);
    if (setting !== undefined) {
      const level = SEVERITY_ALIASES.get(/^[0-2]$/.test(setting) ? Number(setting) : setting);
      if (level === undefined) throw new ConfigError(`--rule ${flag}: severity must be off, info, warn, warning, error, 0, 1 or 2`);
      rules.set(id, level);
    }
    only.add(id);
  }
  return { ...config, rules, only };
}

/**
 * Whether a path is left out by `ignorePatterns` (.gitignore syntax). Each
 * pattern is matched against the path relative to the folder of the config
 * file that holds it; a path outside that folder, and every path for the
 * user-level file's patterns, against the path relative to the input it was
 * found under (the folder named on the command line, or the projects root).
 */
export type PathFilter = (absolute: string, isFolder: boolean, inputRoot: string) => boolean;

export function ignoreFilter(patterns: readonly IgnorePattern[]): PathFilter | undefined {
  if (patterns.length === 0) return undefined;
  const groups = new Map<string | undefined, Ignore>();
  for (const { pattern, base } of patterns) {
    const group = groups.get(base) ?? ignore();
    group.add(pattern);
    groups.set(base, group);
  }
  return (absolute, isFolder, inputRoot) => {
    for (const [base, matcher] of groups) {
      let relative = base === undefined ? undefined : path.relative(base, absolute);
      if (relative === undefined || relative.startsWith('..') || path.isAbsolute(relative)) relative = path.relative(inputRoot, absolute);
      if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
      const posix = relative.split(path.sep).join('/');
      if (matcher.ignores(isFolder ? `${posix}/` : posix)) return true;
    }
    return false;
  };
}

/**
 * The JSON Schema of a config file (draft-07), shipped as
 * `schema/cclintrc.schema.json` so editors can complete and check configs
 * that name it in `$schema`. Generated from the same lists the loader checks.
 */
export function configJsonSchema(rules: ReadonlyArray<{ readonly id: string; readonly description: string }>): object {
  const severity = {
    description: 'off, info, warn / warning, error; or 0 (off), 1 (warning), 2 (error)',
    enum: [...SEVERITY_ALIASES.keys()],
  };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'cclint configuration (.cclintrc.json, cclint.config.json)',
    type: 'object',
    additionalProperties: false,
    properties: {
      $schema: { type: 'string', description: 'The schema this file follows.' },
      root: {
        type: 'boolean',
        description: 'Stop looking for config files in the folders above this one.',
      },
      rules: {
        type: 'object',
        description: 'Severity per rule id; a rule not named keeps its default.',
        additionalProperties: false,
        properties: Object.fromEntries(rules.map((r) => [r.id, { ...severity, description: `${r.description}. ${severity.description}` }])),
      },
      ignorePatterns: {
        type: 'array',
        description:
          'Files and folders to leave out, in .gitignore syntax, relative to the folder of this file (paths outside it: relative to the folder being checked).',
        items: { type: 'string' },
      },
    },
  };
}
