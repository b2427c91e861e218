#!/usr/bin/env node
// Writes docs/rules/<id>.md for every rule from its TSDoc block and
// metadata, and the config's JSON Schema, schema/cclintrc.schema.json (run
// through `npm run docs`, which builds first). With --check it writes nothing
// and exits 1 when a file is missing, stale or left over.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { RULES } = await import(path.join(root, 'dist', 'rules', 'index.js'));
const { leadingDocComment, ruleDocPage } = await import(path.join(root, 'dist', 'formatters', 'rule-doc.js'));
const { configJsonSchema } = await import(path.join(root, 'dist', 'core', 'config.js'));

const check = process.argv.includes('--check');
const dir = path.join(root, 'docs', 'rules');
const wanted = new Map();
for (const rule of RULES) {
  const source = fs.readFileSync(path.join(root, 'src', 'rules', `${rule.meta.id}.ts`), 'utf8');
  const comment = leadingDocComment(source);
  if (comment === undefined) throw new Error(`src/rules/${rule.meta.id}.ts has no leading TSDoc block`);
  wanted.set(`${rule.meta.id}.md`, ruleDocPage(rule.meta, comment));
}

const present = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith('.md')) : [];
const stale = [...wanted].filter(([name, text]) => !fs.existsSync(path.join(dir, name)) || fs.readFileSync(path.join(dir, name), 'utf8') !== text);
const leftOver = present.filter((name) => !wanted.has(name));

const schemaFile = path.join(root, 'schema', 'cclintrc.schema.json');
const schema = `${JSON.stringify(configJsonSchema(RULES.map((r) => r.meta)), null, 2)}\n`;
const schemaStale = !fs.existsSync(schemaFile) || fs.readFileSync(schemaFile, 'utf8') !== schema;

if (check) {
  if (schemaStale) process.stderr.write('schema/cclintrc.schema.json is missing or out of date\n');
  for (const [name] of stale) process.stderr.write(`docs/rules/${name} is missing or out of date\n`);
  for (const name of leftOver) process.stderr.write(`docs/rules/${name} documents no rule\n`);
  if (stale.length > 0 || leftOver.length > 0 || schemaStale) {
    process.stderr.write('run `npm run docs` to regenerate them\n');
    process.exitCode = 1;
  }
} else {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of stale) fs.writeFileSync(path.join(dir, name), text);
  for (const name of leftOver) fs.rmSync(path.join(dir, name));
  process.stdout.write(`docs/rules: ${stale.length} written, ${leftOver.length} removed, ${wanted.size - stale.length} unchanged\n`);
  if (schemaStale) {
    fs.mkdirSync(path.dirname(schemaFile), { recursive: true });
    fs.writeFileSync(schemaFile, schema);
    process.stdout.write('schema/cclintrc.schema.json written\n');
  }
}
