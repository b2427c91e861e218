/**
 * `cclint rules` and `cclint explain <rule-id>`: the rule list, and one
 * rule's documentation page (`docs/rules/<id>.md`, generated from the TSDoc
 * block at the top of its source file and shipped in the package).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { UsageError } from '../core/errors.js';
import type { Io } from '../io.js';
import { RULES, RULES_BY_ID } from '../rules/index.js';
import { ruleDocsUrl } from '../version.js';
import { didYouMean } from '../core/did-you-mean.js';

/** `docs/rules/<id>.md` of the package: two levels above src/commands/ and dist/commands/ alike. */
export function ruleDocPath(id: string): string {
  return fileURLToPath(new URL(`../../docs/rules/${id}.md`, import.meta.url));
}

/** A rule's documentation page (Markdown). */
export function ruleDocumentation(id: string): string {
  return fs.readFileSync(ruleDocPath(id), 'utf8');
}

/** `rules --format json`: one object per rule, in registry order. */
export function rulesJson(): string {
  const list = RULES.map(({ meta }) => ({
    id: meta.id,
    description: meta.description,
    severity: meta.severity,
    fixable: meta.fixable ?? null,
    optInFix: meta.optInFix === true,
    docs: ruleDocsUrl(meta.id),
  }));
  return `${JSON.stringify(list, null, 2)}\n`;
}

export function rulesCommand(io: Io): Command {
  return new Command('rules')
    .description('list every rule with its default severity and fix')
    .addOption(new Option('-f, --format <name>', 'output format').choices(['table', 'json']).default('table'))
    .addHelpText(
      'after',
      `
Examples:
  cclint rules                 the table
  cclint rules --format json   [{id, description, severity, fixable, optInFix, docs}]`,
    )
    .action((options: { format: 'table' | 'json' }) => {
      if (options.format === 'json') {
        io.stdout.write(rulesJson());
        return;
      }
      const width = Math.max(...RULES.map((r) => r.meta.id.length));
      const lines = RULES.map(
        (r) =>
          `${r.meta.id.padEnd(width)}  ${r.meta.severity.padEnd(7)}  ${(r.meta.fixable ?? '-').padEnd(6)}  ${r.meta.description}`,
      );
      io.stdout.write(`${'rule'.padEnd(width)}  default  fix     description\n${lines.join('\n')}\n\nMore: cclint explain <rule>\n`);
    });
}

export function explainCommand(io: Io): Command {
  return new Command('explain')
    .description("print one rule's documentation: what it detects, why it matters, its fix, known false positives")
    .argument('<rule-id>', 'a rule id, as listed by `cclint rules`')
    .addHelpText(
      'after',
      `
Example:
  cclint explain phantom-parent`,
    )
    .action((id: string) => {
      if (!RULES_BY_ID.has(id)) {
        throw new UsageError(`unknown rule "${id}"${didYouMean(id, RULES_BY_ID.keys())}; \`cclint rules\` lists them`);
      }
      io.stdout.write(ruleDocumentation(id));
    });
}
