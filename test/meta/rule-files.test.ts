/**
 * ESLint's checkRuleFiles as a test (style.md §4.9): every rule of the
 * registry has its source file, its test file, its fixtures and its
 * documentation, and the registry itself stays in order.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULES, RULES_BY_ID } from '../../src/rules/index.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const at = (...parts: string[]): string => path.join(REPO, ...parts);
const SECTIONS = ['## What it detects', '## Why it matters', '## Fix', '## Known false positives'] as const;

/** The leading `/** … *\/` block of a source file, or undefined. */
function leadingTsDoc(source: string): string | undefined {
  const match = /^\/\*\*([\s\S]*?)\*\//.exec(source);
  return match?.[1];
}

describe('rule registry', () => {
  const ids = RULES.map((r) => r.meta.id);

  it('is alphabetised and has no duplicate ids', () => {
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    expect(RULES_BY_ID.size).toBe(ids.length);
  });

  it('lists every rule file of src/rules', () => {
    const files = fs
      .readdirSync(at('src/rules'))
      .filter((f) => f.endsWith('.ts') && f !== 'index.ts' && f !== 'rule.ts')
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(files).toEqual([...ids].sort());
  });

  for (const rule of RULES) {
    const { id, messages } = rule.meta;
    describe(id, () => {
      it('is kebab-case', () => {
        expect(id).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
      });

      it(`has src/rules/${id}.ts whose meta.id is its file name`, () => {
        const file = at('src/rules', `${id}.ts`);
        expect(fs.existsSync(file), `${file} is missing`).toBe(true);
        const source = fs.readFileSync(file, 'utf8');
        expect(source).toMatch(new RegExp(`\\bid:\\s*'${id}'`));
      });

      it('starts with a TSDoc block holding the required sections', () => {
        const source = fs.readFileSync(at('src/rules', `${id}.ts`), 'utf8');
        const doc = leadingTsDoc(source);
        expect(doc, `src/rules/${id}.ts must start with /** … */`).toBeDefined();
        const lines = (doc ?? '').split('\n').map((l) => l.replace(/^\s*\* ?/, '').trimEnd());
        expect(lines.find((l) => l.trim() !== ''), 'the block opens with the rule id').toBe(id);
        let previous = -1;
        for (const section of SECTIONS) {
          const index = lines.indexOf(section);
          expect(index, `missing "${section}"`).toBeGreaterThan(-1);
          expect(index, `"${section}" out of order`).toBeGreaterThan(previous);
          const next = lines.findIndex((l, i) => i > index && l.startsWith('## '));
          const body = lines.slice(index + 1, next === -1 ? undefined : next).join(' ').trim();
          expect(body, `"${section}" is empty`).not.toBe('');
          previous = index;
        }
      });

      it(`has test/rules/${id}.test.ts`, () => {
        expect(fs.existsSync(at('test/rules', `${id}.test.ts`))).toBe(true);
      });

      it(`has fixtures/rules/${id}/ with a valid and an invalid file`, () => {
        const dir = at('fixtures/rules', id);
        expect(fs.existsSync(dir), `${dir} is missing`).toBe(true);
        const names = fs.readdirSync(dir);
        expect(names.some((n) => /^valid-[\w-]+\.jsonl$/.test(n)), 'no valid-*.jsonl').toBe(true);
        const invalid = names.filter((n) => /^invalid-[\w-]+\.jsonl$/.test(n) && !n.endsWith('.fixed.jsonl'));
        expect(invalid.length, 'no invalid-*.jsonl').toBeGreaterThan(0);
        for (const n of invalid) expect(names, `${n} has no sidecar`).toContain(n.replace(/\.jsonl$/, '.expected.json'));
      });

      it('has messages whose {placeholders} are word characters', () => {
        expect(Object.keys(messages).length).toBeGreaterThan(0);
        for (const [messageId, template] of Object.entries(messages)) {
          expect(messageId, 'messageIds are camelCase').toMatch(/^[a-z][A-Za-z0-9]*$/);
          expect(template.trim(), `${messageId} is empty`).not.toBe('');
          for (const m of template.matchAll(/\{([^{}]*)\}/g)) {
            expect(m[1], `${messageId}: placeholder "${m[0]}"`).toMatch(/^\w+$/);
          }
          expect(template.replace(/\{\w+\}/g, ''), `${messageId}: stray brace`).not.toMatch(/[{}]/);
        }
      });

      it('declares a severity and, when fixable, a known applicability', () => {
        expect(['error', 'warning', 'info']).toContain(rule.meta.severity);
        if (rule.meta.fixable !== undefined) expect(['safe', 'unsafe', 'display-only']).toContain(rule.meta.fixable);
        expect(rule.meta.description.trim()).not.toBe('');
      });
    });
  }
});
