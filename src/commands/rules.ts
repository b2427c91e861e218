/**
 * `cclint rules` and `cclint explain <rule-id>`: the rule list, and one
 * rule's documentation (the TSDoc block at the top of its source file).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { Io } from '../io.js';
import { RULES, RULES_BY_ID } from '../rules/index.js';

export function rulesCommand(io: Io): Command {
  return new Command('rules')
    .description('list every rule with its default severity and fix')
    .action(() => {
      const width = Math.max(...RULES.map((r) => r.meta.id.length));
      const lines = RULES.map(
        (r) =>
          `${r.meta.id.padEnd(width)}  ${r.meta.severity.padEnd(7)}  ${(r.meta.fixable ?? '-').padEnd(6)}  ${r.meta.description}`,
      );
      io.stdout.write(`${'rule'.padEnd(width)}  default  fix     description\n${lines.join('\n')}\n\nMore: cclint explain <rule>\n`);
    });
}

/** The leading TSDoc block of a rule's source, without comment markers. */
export function ruleDocumentation(id: string): string {
  const here = fileURLToPath(import.meta.url);
  const extension = here.endsWith('.ts') ? '.ts' : '.js';
  const file = fileURLToPath(new URL(`../rules/${id}${extension}`, import.meta.url));
  const source = fs.readFileSync(file, 'utf8');
  const match = /\/\*\*([\s\S]*?)\*\//.exec(source);
  if (match === null) return '';
  return (match[1] ?? '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}

export function explainCommand(io: Io): Command {
  return new Command('explain')
    .description("print one rule's documentation: what it detects, why it matters, its fix, known false positives")
    .argument('<rule-id>', 'a rule id, as listed by `cclint rules`')
    .action((id: string) => {
      const rule = RULES_BY_ID.get(id);
      if (rule === undefined) throw new UsageError(`unknown rule "${id}"; \`cclint rules\` lists them`);
      const { meta } = rule;
      io.stdout.write(
        `${ruleDocumentation(id)}\n\nDefault severity: ${meta.severity}\nFix: ${meta.fixable ?? 'none'}\n`,
      );
    });
}
