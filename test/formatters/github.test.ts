import { describe, expect, it } from 'vitest';
import { escapeData, escapeProperty, github } from '../../src/formatters/github.js';
import { context, fileResult, finding, sample } from './results.js';

describe('github', () => {
  it('writes one annotation per finding, grouped per file, then a summary line', () => {
    expect(github(sample(), context())).toBe(
      [
        '::group::projects/a.jsonl',
        '::notice file=projects/a.jsonl,line=7,title=cclint(string-content)::content is a plain string',
        '::error file=projects/a.jsonl,line=42,title=cclint(phantom-parent)::parentUuid 9f3e… does not match any record.',
        '::warning file=projects/a.jsonl,line=1234,title=cclint(dangling-tool-use)::tool_use has no tool_result',
        '::endgroup::',
        'cclint: 3 problems (1 error, 1 warning, 1 info) in 2 files',
        '',
      ].join('\n'),
    );
  });

  it('escapes message data and property values', () => {
    const results = [
      fileResult('dir/a,b.jsonl', [
        finding({ ruleId: 'phantom-parent', line: 5, message: '100% lost: a, b\r\nnext' }),
      ]),
    ];
    expect(github(results, context())).toBe(
      [
        '::group::dir/a,b.jsonl',
        '::error file=dir/a%2Cb.jsonl,line=5,title=cclint(phantom-parent)::100%25 lost: a, b%0D%0Anext',
        '::endgroup::',
        'cclint: 1 problem (1 error, 0 warnings, 0 info) in 1 file',
        '',
      ].join('\n'),
    );
  });

  it('shows terminal controls visibly before the workflow-command escapes, so the log cannot be restyled', () => {
    const results = [
      fileResult('d/\u001b[8m,x.jsonl', [finding({ ruleId: 'phantom-parent', line: 2, message: 'cwd "\u001b[2J\u009b1m\u202e%" line\nnext\r' })]),
    ];
    expect(github(results, context())).toBe(
      [
        '::group::d/\\x1b[8m,x.jsonl',
        '::error file=d/\\x1b[8m%2Cx.jsonl,line=2,title=cclint(phantom-parent)::cwd "\\x1b[2J\\u009b1m\\u202e%25" line%0Anext\\r',
        '::endgroup::',
        'cclint: 1 problem (1 error, 0 warnings, 0 info) in 1 file',
        '',
      ].join('\n'),
    );
  });

  it('keeps a line break in a file name, encoded, so the annotation names the file', () => {
    const results = [fileResult('d/two\nlines.jsonl', [finding({ ruleId: 'phantom-parent', line: 3, message: 'm' })])];
    expect(github(results, context()).split('\n').slice(0, 2)).toEqual([
      '::group::d/two%0Alines.jsonl',
      '::error file=d/two%0Alines.jsonl,line=3,title=cclint(phantom-parent)::m',
    ]);
  });

  it('escapes % first, so an existing escape is not read back as a character', () => {
    expect(escapeData('%0A\n%')).toBe('%250A%0A%25');
    expect(escapeProperty('C:\\a,b%\n')).toBe('C%3A\\a%2Cb%25%0A');
    expect(escapeData('a:b,c')).toBe('a:b,c');
  });

  it('prints only the summary when clean, plus the --max-warnings line when exceeded', () => {
    expect(github([fileResult('a.jsonl', [])], context())).toBe('cclint: 0 problems (0 errors, 0 warnings, 0 info) in 1 file\n');
    expect(github([], context({ maxWarningsExceeded: { maxWarnings: 2, foundWarnings: 3 } }))).toBe(
      'cclint: 0 problems (0 errors, 0 warnings, 0 info) in 0 files\ncclint found too many warnings (maximum: 2).\n',
    );
  });

  it('never writes colour', () => {
    expect(github(sample(), context({ color: true }))).not.toContain('\u001b');
  });
});
