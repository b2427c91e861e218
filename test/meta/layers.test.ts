/**
 * The architecture as a test: every module of src/ imports only from its own
 * layer or the layers below it. The core (reader, records, index, resume
 * model, analysis) knows nothing of rules, the engine that runs them, the
 * repair pipeline, formatters or commands; rules only report; formatters
 * render what they are given.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** What each layer may import from src/ (besides itself). */
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // Leaf modules at the top of src/ that everything may use.
  base: [],
  core: ['base'],
  rules: ['base', 'core'],
  engine: ['base', 'core', 'rules'],
  repair: ['base', 'core', 'rules', 'engine'],
  formatters: ['base', 'core', 'rules'],
  views: ['base', 'core', 'rules', 'engine'],
  // Process-level helpers (signals) that commands and the program use.
  runtime: ['base', 'core'],
  commands: ['base', 'core', 'rules', 'engine', 'repair', 'formatters', 'views', 'runtime'],
  app: ['base', 'core', 'rules', 'engine', 'repair', 'formatters', 'views', 'runtime', 'commands'],
};

/** Top-level files: `base` ones are plain leaves, `app` ones wire the program together. */
const TOP_LEVEL: Readonly<Record<string, string>> = {
  'version.ts': 'base',
  'io.ts': 'base',
  'interrupt.ts': 'runtime',
  'tuning.ts': 'base',
  'escape.ts': 'base',
  'shell-word.ts': 'base',
  'program.ts': 'app',
  'cli.ts': 'app',
};

function layerOf(file: string): string {
  const relative = path.relative(SRC, file);
  const [first, ...rest] = relative.split(path.sep);
  if (rest.length === 0) {
    const layer = TOP_LEVEL[first as string];
    if (layer === undefined) throw new Error(`src/${relative} has no layer: add it to TOP_LEVEL`);
    return layer;
  }
  if (!(first as string in ALLOWED)) throw new Error(`src/${first}/ is not a known layer`);
  return first as string;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative specifiers of static imports, re-exports and dynamic imports. */
function importsOf(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s+'([^']+)'/g)) found.push(m[1] as string);
  for (const m of source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) found.push(m[1] as string);
  return found.filter((s) => s.startsWith('.'));
}

describe('layers', () => {
  const files = sourceFiles(SRC);

  it('finds the source tree', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  for (const file of files) {
    const relative = path.relative(SRC, file);
    it(`src/${relative} imports only from its layer or below`, () => {
      const layer = layerOf(file);
      const allowed = new Set([layer, ...(ALLOWED[layer] ?? [])]);
      const source = fs.readFileSync(file, 'utf8');
      for (const specifier of importsOf(source)) {
        const target = path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts'));
        const targetLayer = layerOf(target);
        expect(allowed.has(targetLayer), `${relative} (${layer}) imports ${specifier} (${targetLayer})`).toBe(true);
      }
    });
  }
});
