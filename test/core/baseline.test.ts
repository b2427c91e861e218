import { describe, expect, it } from 'vitest';
import { applyBaseline, buildBaseline, parseBaseline, serializeBaseline } from '../../src/core/baseline.js';
import type { FileResult, Finding } from '../../src/core/types.js';

const finding = (over: Partial<Finding>): Finding => ({
  ruleId: 'phantom-parent',
  severity: 'error',
  messageId: 'missing',
  message: 'parentUuid 9f3e… is not in this session',
  line: 3,
  uuid: 'aaaaaaaa-0000-4000-8000-000000000000',
  ...over,
});

const file = (findings: Finding[], filePath = 'projects/-p/s.jsonl'): FileResult => ({
  filePath,
  sessionId: 's',
  findings,
  errorCount: findings.filter((f) => f.severity === 'error').length,
  warningCount: findings.filter((f) => f.severity === 'warning').length,
  infoCount: findings.filter((f) => f.severity === 'info').length,
  recordCount: 10,
});

describe('baseline', () => {
  const recorded = [
    finding({}),
    finding({ ruleId: 'invalid-json', messageId: 'garbage', uuid: undefined, line: 7 }),
    finding({ ruleId: 'string-content', severity: 'info', messageId: 'stringContent', uuid: 'bbbbbbbb-0000-4000-8000-000000000000' }),
  ];
  const baseline = buildBaseline([file(recorded)], '/repo', '/repo');

  it('survives a round trip through its text', () => {
    expect(parseBaseline(serializeBaseline(baseline), 'b.json')).toEqual(baseline);
    expect(Object.keys(baseline.files['projects/-p/s.jsonl'] ?? {})).toEqual(['invalid-json', 'phantom-parent', 'string-content']);
  });

  it('recognises a record\'s finding on another line and with another message text, not another record\'s', () => {
    const later = file([
      finding({ line: 40, message: 'parentUuid 9f3e… is not in this session; resume drops 12 messages' }),
      finding({ uuid: 'cccccccc-0000-4000-8000-000000000000', line: 41 }),
      finding({ ruleId: 'string-content', severity: 'info', messageId: 'stringContent', uuid: 'bbbbbbbb-0000-4000-8000-000000000000' }),
    ]);
    const outcome = applyBaseline([later], baseline, '/repo', '/repo');
    expect(outcome.results[0]?.findings.map((f) => f.uuid)).toEqual(['cccccccc-0000-4000-8000-000000000000']);
    expect(outcome.results[0]?.errorCount).toBe(1);
    expect(outcome.results[0]?.infoCount).toBe(0);
    expect(outcome.suppressed).toBe(2);
    // The unparseable line's finding is anchored on its line: it is gone here.
    expect(outcome.unmatched).toBe(1);
  });

  it('keys files by their path from the baseline\'s folder, so a moved file is not matched', () => {
    const moved = applyBaseline([file(recorded, 'elsewhere/s.jsonl')], baseline, '/repo', '/repo');
    expect(moved.suppressed).toBe(0);
    const fromSubfolder = applyBaseline([file(recorded, 's.jsonl')], baseline, '/repo/projects/-p', '/repo');
    expect(fromSubfolder.suppressed).toBe(3);
  });

  it('tells two copies of one finding apart, so a new copy is reported', () => {
    const twice = buildBaseline([file([finding({})])], '/repo', '/repo');
    const outcome = applyBaseline([file([finding({}), finding({ line: 9 })])], twice, '/repo', '/repo');
    expect(outcome.results[0]?.findings.map((f) => f.line)).toEqual([9]);
  });
});
