/**
 * `.cclintrc.json` and `--config`: per-rule severities, validated with zod at
 * load time so a typo fails the run up front (exit 2) with a readable line,
 * never half-way through a scan.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { z } from 'zod';
import { ConfigError } from './errors.js';
import type { SeveritySetting } from './types.js';

const SEVERITY_SETTINGS: readonly SeveritySetting[] = ['off', 'info', 'warning', 'error'];

/**
 * The config schema, built on first use: most runs have no config file, and
 * loading zod costs more start-up time than the rest of a small check.
 */
function configSchema() {
  const { z: zod } = createRequire(import.meta.url)('zod') as typeof import('zod');
  return zod.strictObject({
    $schema: zod.string().optional(),
    rules: zod.record(zod.string(), zod.enum(['off', 'info', 'warning', 'error'])).optional(),
  });
}

export type CclintConfig = z.infer<ReturnType<typeof configSchema>>;

export interface ResolvedConfig {
  readonly rules: ReadonlyMap<string, SeveritySetting>;
  /** The file the settings came from, for messages. */
  readonly source: string | undefined;
}

export const CONFIG_FILE_NAME = '.cclintrc.json';

function formatIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

/**
 * Loads an explicit `--config` file, or `.cclintrc.json` in the current
 * folder when there is one. Unknown rule ids are an error: a misspelt rule
 * silently doing nothing is worse than a failed run.
 */
export function loadConfig(explicit: string | undefined, cwd: string, knownRules: ReadonlySet<string>): ResolvedConfig {
  const file = explicit !== undefined ? path.resolve(cwd, explicit) : path.join(cwd, CONFIG_FILE_NAME);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (explicit === undefined && (error as NodeJS.ErrnoException).code === 'ENOENT') {
      return { rules: new Map(), source: undefined };
    }
    throw new ConfigError(`cannot read config ${explicit ?? file}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = configSchema().safeParse(json);
  if (!parsed.success) throw new ConfigError(`config ${file} is invalid: ${formatIssues(parsed.error)}`);
  const rules = new Map<string, SeveritySetting>();
  for (const [id, setting] of Object.entries(parsed.data.rules ?? {})) {
    if (!knownRules.has(id)) throw new ConfigError(`config ${file}: unknown rule "${id}" (see \`cclint rules\`)`);
    rules.set(id, setting);
  }
  return { rules, source: file };
}

/** `--rule id` / `--rule id=severity` flags on top of the file's settings. */
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
    if (!knownRules.has(id)) throw new ConfigError(`--rule ${flag}: unknown rule "${id}" (see \`cclint rules\`)`);
    if (setting !== undefined) {
      const level = SEVERITY_SETTINGS.find((s) => s === setting);
      if (level === undefined) throw new ConfigError(`--rule ${flag}: severity must be off, info, warning or error`);
      rules.set(id, level);
    }
    only.add(id);
  }
  return { rules, source: config.source, only };
}
