/**
 * What every command pays before it starts: the modules the program loads
 * statically. zod alone took about 70 ms of a 210 ms `cclint --version`
 * (a third of a warm `check --cache` of a 321 MB tree) when `rename`
 * imported a helper from the planner, whose record schemas import zod; it
 * is loaded only where a config file or a plan needs it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

/** Specifiers of the imports that load a module when this one loads: not `import type`, not `await import(…)`. */
function staticImports(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/(?:^|\n)\s*(import|export)\s+(type\s+)?[^'"`;]*?from\s+'([^']+)'/g)) {
    if (m[2] === undefined) found.push(m[3] as string);
  }
  for (const m of source.matchAll(/(?:^|\n)\s*import\s+'([^']+)'/g)) found.push(m[1] as string);
  return found;
}

/** Every module of src/ loaded with `from`, and the packages they load, with the chain that reaches each package. */
function loadedFrom(entry: string): Map<string, string[]> {
  const packages = new Map<string, string[]>();
  const seen = new Set<string>();
  const visit = (file: string, chain: string[]): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const here = [...chain, path.relative(SRC, file)];
    for (const specifier of staticImports(fs.readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) visit(path.resolve(path.dirname(file), specifier.replace(/\.js$/, '.ts')), here);
      else if (!specifier.startsWith('node:') && !packages.has(specifier)) packages.set(specifier, here);
    }
  };
  visit(entry, []);
  return packages;
}

describe('start-up', () => {
  it('loads commander with the program, and zod only where a config file or a plan is read', () => {
    const packages = loadedFrom(path.join(SRC, 'program.ts'));
    expect(packages.has('commander')).toBe(true);
    const zod = [...packages].filter(([name]) => name === 'zod' || name.startsWith('zod/'));
    expect(zod.map(([name, chain]) => `${name} via ${chain.join(' -> ')}`)).toEqual([]);
  });
});
