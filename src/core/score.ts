/**
 * The corruption score: how likely a session is broken, 0 (healthy) to 1,
 * from measurable structure only (peers.md §5.1; never from keywords).
 *
 * Each signal becomes a probability-like term p_i in [0, 1], and the terms
 * combine as a noisy-OR, `score = 1 − Π(1 − p_i)`, so any one strong signal
 * is enough and weak ones add up without passing 1:
 *
 * | signal | term |
 * | --- | --- |
 * | resume fidelity f (loaded / intended messages) | min(1, 5·(1 − f)) |
 * | unexpected null-parent roots r | 1 − 0.7^r |
 * | phantom parent links per 1,000 records k | 1 − e^(−k/2) |
 * | duplicate-uuid groups d (a group whose copies differ in parent or type counts double) | 1 − 0.85^d |
 * | invalid lines i | 1 − 0.8^i |
 * | newer compaction segments resume cannot reach s | 1 − 0.5^s |
 * | parent cycles c, and parents that name the wrong row m | 1 − 0.7^(c+m) |
 *
 * A healthy session scores exactly 0. Fidelity dominates by design: a
 * session that resumes with 90% of its messages already scores 0.5. The
 * README documents the formula and its calibration on the corpus.
 */
import { expectedRoot, isMainChainRow, TIMESTAMP_BRIDGE_MS } from './analysis.js';
import type { RecordSummary } from './records.js';
import { isCompactBoundary } from './records.js';
import { type ResumeModel, resumeModel } from './resume.js';
import type { SessionIndex } from './session-index.js';

export interface ScoreSignals {
  readonly fidelity: number;
  readonly unexpectedRoots: number;
  readonly phantomLinks: number;
  readonly duplicateGroups: number;
  readonly invalidLines: number;
  readonly unreachableSegments: number;
  /** Parent cycles, and existing parents that name the wrong row (misplaced-parent). */
  readonly wrongLinks: number;
  readonly records: number;
}

export interface SessionScore {
  readonly score: number;
  readonly signals: ScoreSignals;
}

function collectSignals(index: SessionIndex, resume: ResumeModel): ScoreSignals {
  let unexpectedRoots = 0;
  let phantomLinks = 0;
  let lastBoundarySegment = 0;
  for (const r of index.effectiveRecords()) {
    if (!index.isChainRow(r)) continue;
    if (r.parentUuid === null && isMainChainRow(index, r) && expectedRoot(index, r) === undefined) unexpectedRoots++;
    if (index.hasMissingParent(r)) {
      phantomLinks++;
    }
    if (isCompactBoundary(r) && isMainChainRow(index, r)) lastBoundarySegment = index.segmentOf(r);
  }
  let duplicateGroups = 0;
  for (const group of index.duplicates.values()) {
    const first = group[0] as RecordSummary;
    duplicateGroups += group.some((g) => g.parentUuid !== first.parentUuid || g.type !== first.type) ? 2 : 1;
  }
  const leafSegment = resume.leaf === undefined ? lastBoundarySegment : index.segmentOf(resume.leaf);
  return {
    fidelity: resume.fidelity,
    unexpectedRoots,
    phantomLinks,
    duplicateGroups,
    invalidLines: index.invalidLines.filter((l) => l.reason !== 'bom').length,
    unreachableSegments: Math.max(0, lastBoundarySegment - leafSegment),
    wrongLinks: resume.repairs.filter((r) => r.kind === 'cycle' || r.kind === 'misplaced').length,
    records: index.records.length,
  };
}

export function scoreFromSignals(s: ScoreSignals): number {
  const perThousand = s.records === 0 ? 0 : (s.phantomLinks * 1000) / s.records;
  const terms = [
    Math.min(1, 5 * (1 - s.fidelity)),
    1 - 0.7 ** s.unexpectedRoots,
    1 - Math.exp(-perThousand / 2),
    1 - 0.85 ** s.duplicateGroups,
    1 - 0.8 ** s.invalidLines,
    1 - 0.5 ** s.unreachableSegments,
    1 - 0.7 ** s.wrongLinks,
  ];
  const healthy = terms.reduce((acc, p) => acc * (1 - Math.max(0, Math.min(1, p))), 1);
  return Math.round((1 - healthy) * 1000) / 1000;
}

export function scoreSession(index: SessionIndex, resume: ResumeModel): SessionScore {
  const signals = collectSignals(index, resume);
  return { score: scoreFromSignals(signals), signals };
}

/**
 * How likely the branch that starts at `root` (a record with no parent in
 * this file) is a broken-off piece of the conversation rather than a
 * legitimate start, 0 to 1. Plain sum of four structural signals, used by
 * `cclint tree` to rank orphaned branches:
 *
 * | signal | weight |
 * | --- | --- |
 * | no usable parent on a record that is not an expected root (`parentUuid: null` that `expectedRoot` does not accept, or a parent that exists nowhere) | 0.4 |
 * | its timestamp is at most 5 s after the previous timestamped record in file order (written mid-turn, not a new start) | 0.2 |
 * | a sidechain record without a parent (null or missing) | 0.3 |
 * | nothing in the branch is on the chain resume loads (no connection to the main thread) | 0.1 |
 */
export function branchScore(index: SessionIndex, root: RecordSummary): number {
  const parent = root.parentUuid;
  const missing = typeof parent === 'string' && !index.byUuid.has(parent) && index.externalParent(parent) === undefined;
  const parentless = parent === null || parent === undefined || missing;
  let score = 0;
  if (missing || (parent === null && expectedRoot(index, root) === undefined)) score += 0.4;
  if (!Number.isNaN(root.time)) {
    for (let i = root.ordinal - 1; i >= 0; i--) {
      const previous = index.records[i] as RecordSummary;
      if (Number.isNaN(previous.time)) continue;
      const gap = root.time - previous.time;
      if (gap >= 0 && gap <= TIMESTAMP_BRIDGE_MS) score += 0.2;
      break;
    }
  }
  if (root.isSidechain && parentless) score += 0.3;
  if (!branchReachesChain(index, root, resumeModel(index))) score += 0.1;
  return Math.round(Math.min(1, score) * 100) / 100;
}

/** Some record of the subtree under `root` (itself included) is on the loaded chain. */
function branchReachesChain(index: SessionIndex, root: RecordSummary, resume: ResumeModel): boolean {
  const seen = new Set<RecordSummary>();
  const stack = [root];
  while (stack.length > 0) {
    const r = stack.pop() as RecordSummary;
    if (seen.has(r)) continue;
    seen.add(r);
    if (resume.onChain(r)) return true;
    if (r.uuid !== undefined) for (const child of index.childrenOf(r.uuid)) stack.push(child);
  }
  return false;
}
