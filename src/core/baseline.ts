/**
 * The baseline (`check --baseline <file>`): today's findings recorded so that
 * later runs report only new ones, the way ESLint's bulk suppressions let a
 * team adopt a rule without fixing everything first.
 *
 * The file holds, per transcript (its path relative to the baseline file's
 * folder, with `/`) and per rule, the fingerprints of the findings recorded:
 * hashes of rule, session, record uuid and message id (see fingerprint.ts),
 * never content and never line numbers, so a session that grows or a repair
 * that shifts lines keeps its recorded findings recognisable. A finding is
 * suppressed when its fingerprint is recorded for its file and rule.
 */
import path from 'node:path';
import { CclintError } from './errors.js';
import { fingerprintsOf } from './fingerprint.js';
import { type FileResult, countBySeverity } from './types.js';

export const BASELINE_VERSION = 1;

export interface Baseline {
  readonly version: typeof BASELINE_VERSION;
  /** Transcript path (relative to the baseline's folder) → rule id → fingerprints, sorted. */
  readonly files: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

/** How a transcript is named in a baseline kept in `baselineDir`. */
function keyOf(filePath: string, cwd: string, baselineDir: string): string {
  return path.relative(baselineDir, path.resolve(cwd, filePath)).split(path.sep).join('/');
}

/** The session a file's fingerprints are computed for: its id, else its baseline key. */
function sessionOf(result: FileResult, key: string): string {
  return result.sessionId ?? `file:${key}`;
}

/** Records every finding of `results`. */
export function buildBaseline(results: readonly FileResult[], cwd: string, baselineDir: string): Baseline {
  const files: Record<string, Record<string, string[]>> = {};
  for (const result of [...results].sort((a, b) => (a.filePath < b.filePath ? -1 : 1))) {
    if (result.findings.length === 0) continue;
    const key = keyOf(result.filePath, cwd, baselineDir);
    const byRule: Record<string, string[]> = {};
    fingerprintsOf(result.findings, sessionOf(result, key)).forEach((fingerprint, i) => {
      const ruleId = (result.findings[i] as FileResult['findings'][number]).ruleId;
      (byRule[ruleId] ??= []).push(fingerprint);
    });
    files[key] = Object.fromEntries(Object.entries(byRule).sort(([a], [b]) => (a < b ? -1 : 1)).map(([id, list]) => [id, list.sort()]));
  }
  return { version: BASELINE_VERSION, files };
}

/** The baseline file's text: stable key order, one fingerprint a line, so diffs stay readable. */
export function serializeBaseline(baseline: Baseline): string {
  return `${JSON.stringify(baseline, null, 2)}\n`;
}

/** Reads a baseline file's text; anything else than this format is an error (exit 2). */
export function parseBaseline(text: string, shown: string): Baseline {
  let json: unknown;
  try {
    // A byte-order mark, which some editors put first, is no JSON but no mistake either.
    json = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new CclintError(`baseline ${shown} is not valid JSON: ${(error as Error).message}`);
  }
  const invalid = (why: string): never => {
    throw new CclintError(`baseline ${shown} is not a cclint baseline: ${why}; record it again with --baseline-update`);
  };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return invalid('not a JSON object');
  const { version, files } = json as { version?: unknown; files?: unknown };
  if (version !== BASELINE_VERSION) return invalid(`version ${JSON.stringify(version)}, expected ${BASELINE_VERSION}`);
  if (files === null || typeof files !== 'object' || Array.isArray(files)) return invalid('"files" is not an object');
  for (const [file, rules] of Object.entries(files)) {
    if (rules === null || typeof rules !== 'object' || Array.isArray(rules)) return invalid(`"${file}" is not an object`);
    for (const [rule, list] of Object.entries(rules)) {
      if (!Array.isArray(list) || !list.every((x) => typeof x === 'string')) return invalid(`"${file}" → "${rule}" is not a list of fingerprints`);
    }
  }
  return json as Baseline;
}

export interface BaselineOutcome {
  /** The results without the recorded findings; counts follow. */
  readonly results: FileResult[];
  readonly suppressed: number;
  /** Recorded findings of the files checked that no longer occur (fixed). */
  readonly unmatched: number;
}

/** Leaves out the findings the baseline records. */
export function applyBaseline(results: readonly FileResult[], baseline: Baseline, cwd: string, baselineDir: string): BaselineOutcome {
  let suppressed = 0;
  let unmatched = 0;
  const kept = results.map((result) => {
    const key = keyOf(result.filePath, cwd, baselineDir);
    const recorded = baseline.files[key];
    if (recorded === undefined) return result;
    const open = new Set(Object.entries(recorded).flatMap(([ruleId, list]) => list.map((fingerprint) => `${ruleId}\0${fingerprint}`)));
    const fingerprints = fingerprintsOf(result.findings, sessionOf(result, key));
    const findings = result.findings.filter((f, i) => !open.delete(`${f.ruleId}\0${fingerprints[i] as string}`));
    suppressed += result.findings.length - findings.length;
    unmatched += open.size;
    return findings.length === result.findings.length ? result : { ...result, findings, ...countBySeverity(findings) };
  });
  return { results: kept, suppressed, unmatched };
}
