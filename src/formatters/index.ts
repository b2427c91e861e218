/**
 * The formatter registry: `--format <name>` looks its formatter up here.
 */
import { github } from './github.js';
import { json } from './json.js';
import { sarif } from './sarif.js';
import { stylish } from './stylish.js';
import type { Formatter } from './types.js';

export type FormatterName = 'stylish' | 'json' | 'sarif' | 'github';

export const FORMATTERS: Readonly<Record<FormatterName, Formatter>> = { stylish, json, sarif, github };

/** The names in `--help` order; `stylish` (the default) first. */
export const formatterNames: readonly FormatterName[] = ['stylish', 'json', 'sarif', 'github'];

export type { FormatContext, Formatter, RuleHelp } from './types.js';
