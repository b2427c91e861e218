/**
 * The rule documentation pages, `docs/rules/<id>.md`, are generated from
 * each rule's TSDoc block (`npm run docs`) and shipped in the package: they
 * must match their sources, cite nothing the package does not ship, and be
 * what `cclint explain` prints and SARIF links to.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { leadingDocComment, ruleDocPage } from '../../src/formatters/rule-doc.js';
import { RULES } from '../../src/rules/index.js';
import { ruleDocsUrl } from '../../src/version.js';
import { copyDemo, run, sandbox } from '../support/cli.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const page = (id: string): string => fs.readFileSync(path.join(REPO, 'docs', 'rules', `${id}.md`), 'utf8');

/** References to the team's internal notes, which the package does not ship. */
const UNSHIPPED_REFERENCE = /\b(?:format|peers|style)\.md\b|§/;

describe('rule documentation pages', () => {
  it('exist for exactly the registered rules', () => {
    const pages = fs.readdirSync(path.join(REPO, 'docs', 'rules')).sort();
    expect(pages).toEqual(RULES.map((r) => `${r.meta.id}.md`).sort());
  });

  for (const { meta } of RULES) {
    it(`docs/rules/${meta.id}.md is generated from src/rules/${meta.id}.ts (else run \`npm run docs\`)`, () => {
      const comment = leadingDocComment(fs.readFileSync(path.join(REPO, 'src', 'rules', `${meta.id}.ts`), 'utf8'));
      expect(page(meta.id)).toBe(ruleDocPage(meta, comment ?? ''));
    });
  }

  it('cite nothing the package does not ship, nor does the README', () => {
    const citing = [...RULES.map((r) => `docs/rules/${r.meta.id}.md`), 'README.md'].filter((file) =>
      UNSHIPPED_REFERENCE.test(fs.readFileSync(path.join(REPO, file), 'utf8')),
    );
    expect(citing).toEqual([]);
  });

  it('open with the rule id, its description and its defaults', () => {
    expect(page('orphan-tool-result').split('\n').slice(0, 7)).toEqual([
      '# orphan-tool-result',
      '',
      'Every tool_result answers a tool_use of the assistant turn before it.',
      '',
      '| default severity | fix |',
      '| --- | --- |',
      '| warning | unsafe, opt-in |',
    ]);
  });
});

describe('cclint explain and SARIF use the pages', () => {
  const box = sandbox();
  afterAll(() => box.cleanup());

  it('explain prints the page of every rule', async () => {
    for (const { meta } of RULES) {
      const r = await run(['explain', meta.id], { env: box.env, cwd: box.root });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(page(meta.id));
    }
  });

  it('rules --format json lists every rule with its defaults and its page', async () => {
    const r = await run(['rules', '--format', 'json'], { env: box.env, cwd: box.root });
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(list.map((x) => x.id)).toEqual(RULES.map((rule) => rule.meta.id));
    expect(list.find((x) => x.id === 'orphan-tool-result')).toEqual({
      id: 'orphan-tool-result',
      description: 'Every tool_result answers a tool_use of the assistant turn before it',
      severity: 'warning',
      fixable: 'unsafe',
      optInFix: true,
      docs: 'https://github.com/cclint/cclint/blob/main/docs/rules/orphan-tool-result.md',
    });
    expect(list.find((x) => x.id === 'invalid-timestamp')).toMatchObject({ fixable: null, optInFix: false });
  });

  it('explain names the closest rule for a misspelt id, exit 2', async () => {
    const r = await run(['explain', 'phantom-parrent'], { env: box.env, cwd: box.root });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cclint: unknown rule "phantom-parrent" (did you mean "phantom-parent"?); `cclint rules` lists them\n');
  });

  it('check --format sarif links every rule to its page and embeds it', async () => {
    const project = copyDemo(box);
    const r = await run(['check', '--format', 'sarif', project], { env: box.env, cwd: box.root });
    const driver = (JSON.parse(r.stdout) as {
      runs: Array<{ tool: { driver: { informationUri: string; rules: Array<{ id: string; helpUri: string; help: { markdown: string } }> } } }>;
    }).runs[0]?.tool.driver;
    expect(driver?.informationUri).toBe('https://github.com/cclint/cclint');
    expect(driver?.rules.map((rule) => [rule.id, rule.helpUri, rule.help.markdown])).toEqual(
      RULES.map(({ meta }) => [meta.id, ruleDocsUrl(meta.id), page(meta.id)]),
    );
    expect(ruleDocsUrl('invalid-json')).toBe('https://github.com/cclint/cclint/blob/main/docs/rules/invalid-json.md');
  });
});
