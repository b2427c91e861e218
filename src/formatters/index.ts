/**
 * The formatter registry: `--format <name>` looks its formatter up here.
 */
import { github } from './github.js';
import { json, jsonChunks } from './json.js';
import { sarif, sarifChunks } from './sarif.js';
import { stylish } from './stylish.js';
import type { ChunkedFormatter, Formatter } from './types.js';

export type FormatterName = 'stylish' | 'json' | 'sarif' | 'github';

export const FORMATTERS: Readonly<Record<FormatterName, Formatter>> = { stylish, json, sarif, github };

/** Formatters whose text is written in pieces (the same text): a JSON or SARIF report can hold every finding of a 1 GB session. */
export const CHUNKED_FORMATTERS: Readonly<Partial<Record<FormatterName, ChunkedFormatter>>> = { json: jsonChunks, sarif: sarifChunks };

/** The names in `--help` order; `stylish` (the default) first. */
export const formatterNames: readonly FormatterName[] = ['stylish', 'json', 'sarif', 'github'];

export type { ChunkedFormatter, FormatContext, Formatter, RuleHelp } from './types.js';
