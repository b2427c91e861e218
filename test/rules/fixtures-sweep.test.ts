/**
 * Lints every per-rule fixture (`fixtures/rules/<rule-id>/`) with ALL rules:
 * a `valid-*.jsonl` has no finding from its own rule, and the findings of an
 * `invalid-*.jsonl` from its own rule equal its `invalid-*.expected.json`
 * sidecar exactly (rule, line, messageId, in order). Other rules may report
 * on a fixture; none may crash on it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RULES, RULES_BY_ID } from '../../src/rules/index.js';
import { lintCase } from '../helpers/rule-tester.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/rules');

interface Expected {
  readonly ruleId: string;
  readonly line: number;
  readonly messageId: string;
}

function readSidecar(file: string): Expected[] {
  const value = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  if (!Array.isArray(value)) throw new Error(`${file}: not an array`);
  return value.map((e: unknown, i) => {
    const o = e as Partial<Expected> | null;
    if (o === null || typeof o.ruleId !== 'string' || typeof o.line !== 'number' || typeof o.messageId !== 'string') {
      throw new Error(`${file}[${i}]: need {"ruleId","line","messageId"}`);
    }
    return { ruleId: o.ruleId, line: o.line, messageId: o.messageId };
  });
}

const dirs = fs.existsSync(ROOT) ? fs.readdirSync(ROOT).sort() : [];

describe('fixtures/rules sweep', () => {
  it('has a fixture folder for rules only', () => {
    for (const dir of dirs) expect(RULES_BY_ID.has(dir), `fixtures/rules/${dir} names no rule`).toBe(true);
  });

  for (const ruleId of dirs) {
    const dir = path.join(ROOT, ruleId);
    const names = fs.readdirSync(dir).sort();
    describe(ruleId, () => {
      it('holds only valid-*.jsonl, invalid-*.jsonl and their sidecars', () => {
        for (const name of names) {
          expect(name, `fixtures/rules/${ruleId}/${name}`).toMatch(/^(valid-[\w-]+\.jsonl|invalid-[\w-]+\.(jsonl|expected\.json|fixed\.jsonl))$/);
          if (name.endsWith('.expected.json')) {
            expect(names, `${name} has no fixture`).toContain(name.replace(/\.expected\.json$/, '.jsonl'));
          }
        }
      });

      for (const name of names.filter((n) => /^(valid|invalid)-[\w-]+\.jsonl$/.test(n) && !n.endsWith('.fixed.jsonl'))) {
        const file = path.join(dir, name);
        it(name, () => {
          const text = fs.readFileSync(file);
          let findings: ReturnType<typeof lintCase>['findings'] = [];
          expect(() => {
            findings = lintCase(RULES, { text }).findings;
          }, `${name}: a rule threw`).not.toThrow();
          const own = findings.filter((f) => f.ruleId === ruleId).map((f) => ({ ruleId: f.ruleId, line: f.line, messageId: f.messageId }));
          if (name.startsWith('valid-')) {
            expect(own, `${ruleId}/${name} must have no ${ruleId} finding`).toEqual([]);
          } else {
            const sidecar = file.replace(/\.jsonl$/, '.expected.json');
            expect(fs.existsSync(sidecar), `${ruleId}/${name} needs ${path.basename(sidecar)}`).toBe(true);
            const expected = readSidecar(sidecar);
            for (const e of expected) expect(e.ruleId, `${path.basename(sidecar)} lists another rule`).toBe(ruleId);
            expect(expected.length, `${path.basename(sidecar)} is empty`).toBeGreaterThan(0);
            expect(own).toEqual(expected);
          }
        });
      }
    });
  }
});
