import { describe, expect, it } from 'vitest';
import type { RuleMeta } from '../../src/rules/rule.js';
import { stylish } from '../../src/formatters/stylish.js';
import { ANSI, META, UUID_A, context, fileResult, finding, fix, sample } from './results.js';

describe('stylish', () => {
  it('lays out files, aligned rows, the resume figure and the summary', () => {
    expect(stylish(sample(), context())).toBe(
      [
        'projects/a.jsonl',
        '     7  info     content is a plain string                   string-content',
        '    42  error    parentUuid 9f3e… does not match any record  phantom-parent     9f3e1a2b',
        '  1234  warning  tool_use has no tool_result                 dangling-tool-use  abcdef01',
        '  resume loads 12 of 1,701 messages (0.7%) · score 0.93',
        '',
        '✖ 3 problems (1 error, 1 warning, 1 info)',
        '  1 fixable with `cclint fix` (1 more with `cclint fix --unsafe`)',
        '',
      ].join('\n'),
    );
  });

  it('says so when clean, counting files with plurals', () => {
    expect(stylish(sample().slice(1), context())).toBe('✔ No problems in 1 file\n');
    expect(stylish([fileResult('a.jsonl', []), fileResult('b.jsonl', [])], context())).toBe(
      '✔ No problems in 2 files\n',
    );
    expect(stylish([], context())).toBe('✔ No problems in 0 files\n');
  });

  it('claims nothing when a named path could not be read and nothing was checked', () => {
    expect(stylish([], context({ unreadableInputs: true }))).toBe('');
    expect(stylish(sample().slice(1), context({ unreadableInputs: true }))).toBe('✔ No problems in 1 file\n');
  });

  it('shows escape sequences from a transcript in the path, message and uuid as visible escapes, aligned', () => {
    const results = [
      fileResult('p/\u001b[31mx.jsonl', [
        finding({ ruleId: 'phantom-parent', line: 3, message: 'parentUuid \u001b]0;t\u0007… is not here.', uuid: '\u001b[2J\u202eabcdef' }),
        finding({ ruleId: 'phantom-parent', line: 4, message: 'short', uuid: UUID_A }),
      ]),
    ];
    expect(stylish(results, context())).toBe(
      [
        'p/\\x1b[31mx.jsonl',
        '  3  error  parentUuid \\x1b]0;t\\x07… is not here  phantom-parent  \\x1b[2J\\u202eabc',
        '  4  error  short                                 phantom-parent  9f3e1a2b',
        '',
        '✖ 2 problems (2 errors, 0 warnings, 0 info)',
        '',
      ].join('\n'),
    );
  });

  it('writes no escape code at all with colour off', () => {
    const out = stylish(sample(), context({ color: false, maxWarningsExceeded: { maxWarnings: 0, foundWarnings: 1 } }));
    expect(out).not.toContain('\u001b');
    expect(stylish(sample().slice(1), context({ color: false }))).not.toContain('\u001b');
  });

  it('colours severities, underlines paths and dims secondary text with colour on, keeping the layout', () => {
    const plain = stylish(sample(), context({ color: false }));
    const coloured = stylish(sample(), context({ color: true }));
    expect(coloured).not.toBe(plain);
    expect(coloured.replace(ANSI, '')).toBe(plain);
    expect(coloured).toContain('\u001b[4mprojects/a.jsonl\u001b[24m');
    expect(coloured).toContain('\u001b[31merror\u001b[39m');
    expect(coloured).toContain('\u001b[33mwarning\u001b[39m');
    expect(coloured).toContain('\u001b[34minfo\u001b[39m');
    expect(coloured).toContain('\u001b[2mphantom-parent\u001b[22m');
    expect(coloured).toContain('\u001b[2m9f3e1a2b\u001b[22m');
    expect(coloured).toContain('\u001b[1m\u001b[31m✖ 3 problems');
    expect(stylish([fileResult('a.jsonl', [])], context({ color: true }))).toBe(
      '\u001b[32m✔ No problems in 1 file\u001b[39m\n',
    );
  });

  it('colours the summary by the worst severity present', () => {
    const warningOnly = [fileResult('a.jsonl', [finding({ ruleId: 'r', line: 1, severity: 'warning' })])];
    const infoOnly = [fileResult('a.jsonl', [finding({ ruleId: 'r', line: 1, severity: 'info' })])];
    expect(stylish(warningOnly, context({ color: true }))).toContain('\u001b[1m\u001b[33m✖ 1 problem (0 errors, 1 warning, 0 info)');
    expect(stylish(infoOnly, context({ color: true }))).toContain('\u001b[1m\u001b[34m✖ 1 problem (0 errors, 0 warnings, 1 info)');
  });

  it('counts safe and unsafe fixes, never display-only ones', () => {
    const results = (applicabilities: Array<'safe' | 'unsafe' | 'display-only'>) => [
      fileResult(
        'a.jsonl',
        applicabilities.map((a, i) => finding({ ruleId: 'r', line: i + 1, message: `m${i}`, fix: fix(a) })),
      ),
    ];
    const lastLines = (out: string) => out.trimEnd().split('\n').slice(-2);
    expect(lastLines(stylish(results(['safe', 'safe', 'unsafe', 'display-only']), context()))).toEqual([
      '✖ 4 problems (4 errors, 0 warnings, 0 info)',
      '  2 fixable with `cclint fix` (1 more with `cclint fix --unsafe`)',
    ]);
    expect(lastLines(stylish(results(['safe', 'display-only']), context()))).toEqual([
      '✖ 2 problems (2 errors, 0 warnings, 0 info)',
      '  1 fixable with `cclint fix`',
    ]);
    expect(lastLines(stylish(results(['unsafe', 'unsafe']), context()))).toEqual([
      '✖ 2 problems (2 errors, 0 warnings, 0 info)',
      '  2 fixable with `cclint fix --unsafe`',
    ]);
    expect(stylish(results(['display-only']), context())).toBe(
      'a.jsonl\n  1  error  m0  r\n\n✖ 1 problem (1 error, 0 warnings, 0 info)\n',
    );
  });

  it('counts an opt-in rule\'s fixes under the command that names the rule', () => {
    const meta = new Map(META);
    meta.set('string-content', { ...(META.get('string-content') as RuleMeta), optInFix: true });
    meta.set('dangling-tool-use', { ...(META.get('dangling-tool-use') as RuleMeta), optInFix: true });
    const results = [
      fileResult('a.jsonl', [
        finding({ ruleId: 'string-content', line: 1, message: 'm', fix: fix('unsafe') }),
        finding({ ruleId: 'string-content', line: 2, message: 'm', fix: fix('unsafe') }),
        finding({ ruleId: 'dangling-tool-use', line: 3, message: 'm', fix: fix('safe') }),
        finding({ ruleId: 'phantom-parent', line: 4, message: 'm', fix: fix('unsafe') }),
      ]),
    ];
    expect(stylish(results, context({ rulesMeta: meta })).trimEnd().split('\n').at(-1)).toBe(
      '  1 fixable with `cclint fix --unsafe` (1 more with `cclint fix --rule dangling-tool-use`, 2 more with `cclint fix --unsafe --rule string-content`)',
    );
    const onlyOptIn = [fileResult('a.jsonl', [finding({ ruleId: 'string-content', line: 1, message: 'm', fix: fix('unsafe') })])];
    expect(stylish(onlyOptIn, context({ rulesMeta: meta })).trimEnd().split('\n').at(-1)).toBe(
      '  1 fixable with `cclint fix --unsafe --rule string-content`',
    );
  });

  it('shows the resume figure only when resume loses something', () => {
    const one = finding({ ruleId: 'r', line: 3, message: 'bad' });
    expect(stylish([fileResult('a.jsonl', [one], { resume: { loaded: 5, total: 5, fidelity: 1, sdk: 5 }, score: 0.4 })], context()))
      .toBe('a.jsonl\n  3  error  bad  r\n\n✖ 1 problem (1 error, 0 warnings, 0 info)\n');
    expect(stylish([fileResult('a.jsonl', [one])], context())).toBe(
      'a.jsonl\n  3  error  bad  r\n\n✖ 1 problem (1 error, 0 warnings, 0 info)\n',
    );
    expect(stylish([fileResult('a.jsonl', [one], { resume: { loaded: 1699, total: 1700, fidelity: 0.999, sdk: 1600 } })], context()))
      .toBe('a.jsonl\n  3  error  bad  r\n  resume loads 1,699 of 1,700 messages (99.9%)\n\n✖ 1 problem (1 error, 0 warnings, 0 info)\n');
  });

  it('formats counts with thousands separators and strips a trailing period', () => {
    const many = Array.from({ length: 1234 }, (_, i) => finding({ ruleId: 'r', line: i + 1, message: 'Bad.' }));
    const out = stylish([fileResult('a.jsonl', many)], context());
    expect(out.split('\n')[1]).toBe('     1  error  Bad  r');
    expect(out.endsWith('\n✖ 1,234 problems (1,234 errors, 0 warnings, 0 info)\n')).toBe(true);
  });

  it('lists only files with findings, separated by a blank line', () => {
    const f = (line: number) => finding({ ruleId: 'r', line, message: 'bad', uuid: UUID_A });
    const out = stylish(
      [fileResult('a.jsonl', [f(1)]), fileResult('b.jsonl', []), fileResult('c.jsonl', [f(10)])],
      context(),
    );
    expect(out).toBe(
      'a.jsonl\n  1  error  bad  r  9f3e1a2b\n\nc.jsonl\n  10  error  bad  r  9f3e1a2b\n\n✖ 2 problems (2 errors, 0 warnings, 0 info)\n',
    );
  });

  it('adds the ESLint-style line when --max-warnings is exceeded', () => {
    const warn = finding({ ruleId: 'r', line: 1, severity: 'warning', message: 'w' });
    expect(stylish([fileResult('a.jsonl', [warn])], context({ maxWarningsExceeded: { maxWarnings: 0, foundWarnings: 1 } })))
      .toBe('a.jsonl\n  1  warning  w  r\n\n✖ 1 problem (0 errors, 1 warning, 0 info)\n\ncclint found too many warnings (maximum: 0).\n');
  });
});
