import { describe, expect, it } from 'vitest';
import { json } from '../../src/formatters/json.js';
import { SESSION, UUID_A, context, fileResult, finding, sample } from './results.js';

type Json = Record<string, unknown>;
const parse = (text: string): Json => JSON.parse(text) as Json;
const keys = (o: unknown): string[] => Object.keys(o as Json).sort();

describe('json', () => {
  it('follows schema version 2 field for field', () => {
    const report = parse(json(sample(), context()));
    expect(keys(report)).toEqual(['results', 'summary', 'version']);
    expect(report.version).toBe(2);
    const results = report.results as Json[];
    expect(results).toHaveLength(2);
    const [a, b] = results as [Json, Json];
    expect(keys(a)).toEqual(
      ['errorCount', 'filePath', 'infoCount', 'messages', 'resume', 'score', 'sessionId', 'warningCount'].sort(),
    );
    expect(a).toMatchObject({ filePath: 'projects/a.jsonl', sessionId: SESSION, errorCount: 1, warningCount: 1, infoCount: 1 });
    expect(a.resume).toEqual({ loaded: 12, total: 1701, fidelity: 0.007, sdk: 12 });
    expect(a.score).toBe(0.934);
    const [info, error, warning] = a.messages as [Json, Json, Json];
    expect(keys(info)).toEqual(['fix', 'line', 'message', 'messageId', 'ruleId', 'severity']);
    expect(keys(error)).toEqual(['fix', 'line', 'message', 'messageId', 'ruleId', 'severity', 'uuid']);
    expect(keys(warning)).toEqual(['line', 'message', 'messageId', 'ruleId', 'severity', 'uuid']);
    expect(error).toEqual({
      ruleId: 'phantom-parent',
      messageId: 'missingParent',
      severity: 'error',
      line: 42,
      uuid: UUID_A,
      message: 'parentUuid 9f3e… does not match any record.',
      fix: { title: 'reattach to the previous record', applicability: 'safe' },
    });
    expect(info.fix).toEqual({ title: 'fix (unsafe)', applicability: 'unsafe' });
    expect(b).toEqual({
      filePath: 'projects/b.jsonl',
      sessionId: SESSION,
      errorCount: 0,
      warningCount: 0,
      infoCount: 0,
      resume: { loaded: 3, total: 3, fidelity: 1, sdk: 3 },
      score: 0,
      messages: [],
    });
    expect(report.summary).toEqual({ files: 2, errorCount: 1, warningCount: 1, infoCount: 1 });
    expect(keys(report.summary)).toEqual(['errorCount', 'files', 'infoCount', 'warningCount']);
  });

  it('pretty-prints with two spaces and ends with a newline; omits absent uuid and fix; writes absent resume and score as null', () => {
    const results = [fileResult('x.jsonl', [finding({ ruleId: 'invalid-json', messageId: 'torn', line: 3, message: 'torn line' })])];
    expect(json(results, context())).toBe(`{
  "version": 2,
  "results": [
    {
      "filePath": "x.jsonl",
      "sessionId": "${SESSION}",
      "errorCount": 1,
      "warningCount": 0,
      "infoCount": 0,
      "resume": null,
      "score": null,
      "messages": [
        {
          "ruleId": "invalid-json",
          "messageId": "torn",
          "severity": "error",
          "line": 3,
          "message": "torn line"
        }
      ]
    }
  ],
  "summary": {
    "files": 1,
    "errorCount": 1,
    "warningCount": 0,
    "infoCount": 0
  }
}
`);
  });

  it('keeps the sessionId key, as null, when the file names no session', () => {
    const report = parse(json([fileResult('x.jsonl', [], { sessionId: undefined })], context()));
    const [only] = report.results as [Json];
    expect(keys(only)).toContain('sessionId');
    expect(only.sessionId).toBeNull();
  });

  it('is the same with colour on (no escape codes in machine output)', () => {
    expect(json(sample(), context({ color: true }))).toBe(json(sample(), context({ color: false })));
  });

  it('emits an empty result list for no files', () => {
    expect(parse(json([], context()))).toEqual({
      version: 2,
      results: [],
      summary: { files: 0, errorCount: 0, warningCount: 0, infoCount: 0 },
    });
  });
});
