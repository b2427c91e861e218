/**
 * A rule's documentation page, `docs/rules/<id>.md`: its metadata and the
 * TSDoc block at the top of its source file, as Markdown. The pages are
 * generated (`npm run docs`) and shipped in the package; `cclint explain`
 * prints one, and SARIF output links to it. Pure: the caller reads the source.
 */
import type { RuleMeta } from '../rules/rule.js';

/** The text of a source file's leading `/** … *\/` block, without comment markers. */
export function leadingDocComment(source: string): string | undefined {
  const match = /^\/\*\*([\s\S]*?)\*\//.exec(source);
  if (match === null) return undefined;
  return (match[1] ?? '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd())
    .join('\n')
    .trim();
}

/** The Markdown page: title, description, a table of defaults, then the TSDoc sections. */
export function ruleDocPage(meta: RuleMeta, docComment: string): string {
  // The comment opens with the rule id, which the page's title already says.
  const body = docComment
    .replace(new RegExp(`^${meta.id}\\s*\\n`), '')
    .replace(/^(#+ .*)\n(?!\n)/gm, '$1\n\n')
    .trim();
  const fix = meta.fixable === undefined ? 'none' : meta.optInFix === true ? `${meta.fixable}, opt-in` : meta.fixable;
  return [
    `# ${meta.id}`,
    '',
    `${meta.description}.`,
    '',
    '| default severity | fix |',
    '| --- | --- |',
    `| ${meta.severity} | ${fix} |`,
    '',
    body,
    '',
  ].join('\n');
}
