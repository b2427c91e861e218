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

/** The modules `program.ts` loads when a command line names their command (`await import('./commands/….js')`). */
function commandModules(program: string): string[] {
  const source = fs.readFileSync(program, 'utf8');
  return [...new Set([...source.matchAll(/import\('(\.\/commands\/[^']+)'\)/g)].map((m) => m[1] as string))].map((specifier) =>
    path.resolve(path.dirname(program), specifier.replace(/\.js$/, '.ts')),
  );
}

describe('start-up', () => {
  const program = path.join(SRC, 'program.ts');

  it('loads a command\'s module only when the command runs', () => {
    expect(staticImports(fs.readFileSync(program, 'utf8')).filter((s) => s.startsWith('./commands/'))).toEqual([]);
    // Every file of src/commands that defines a command is reached that way.
    const defined = fs
      .readdirSync(path.join(SRC, 'commands'))
      .filter((f) => /export function \w+Command\(.*\): Command \{/.test(fs.readFileSync(path.join(SRC, 'commands', f), 'utf8')))
      .map((f) => path.join(SRC, 'commands', f))
      .sort();
    expect(commandModules(program).sort()).toEqual(defined);
  });

  it('loads commander with the program, and zod only where a config file or a plan is read', () => {
    expect(loadedFrom(program).has('commander')).toBe(true);
    for (const entry of [program, ...commandModules(program)]) {
      const zod = [...loadedFrom(entry)].filter(([name]) => name === 'zod' || name.startsWith('zod/'));
      expect(zod.map(([name, chain]) => `${name} via ${chain.join(' -> ')}`)).toEqual([]);
    }
  });
});
