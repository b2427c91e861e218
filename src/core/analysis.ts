/**
 * Structural facts several rules, the resume model and the fixer agree on:
 * which rows belong to the file's own conversation, and which roots are
 * legitimate. Kept in one place so that "is this null parent expected?" has
 * exactly one answer across check, score and fix (where a break should be
 * repaired to is repair-targets.ts).
 */
import {
  type RecordSummary,
  INTERRUPT_MARKER,
  isCompactBoundary,
  isFileSnapshotRow,
} from './records.js';
import type { SessionIndex } from './session-index.js';

/** Why a `parentUuid: null` is legitimate (peers.md §3, format.md §5). */
export type ExpectedRoot =
  | 'first-record'
  | 'compact-boundary'
  | 'sidechain-root'
  | 'after-interrupt'
  | 'new-session-id';

interface Facts {
  /** Ordinal → the nearest earlier main-chain user/assistant record. */
  readonly previousConversational: Int32Array;
  /** Ordinal of the first main-chain record per sessionId. */
  readonly firstMainBySession: Map<string | undefined, number>;
  /** Ordinal of the first chain row of the file (any sidechain flag). */
  readonly firstChainRow: number;
}

const cache = new WeakMap<SessionIndex, Facts>();

/**
 * A row of the file's own conversation: the main chain of a session file, or
 * the sidechain a subagent file holds (never a file snapshot).
 */
export function isMainChainRow(index: SessionIndex, r: RecordSummary): boolean {
  if (!index.isChainRow(r) || isFileSnapshotRow(r)) return false;
  return isAgentFile(index) ? true : !r.isSidechain;
}

export function isAgentFile(index: SessionIndex): boolean {
  return index.file.role === 'subagent' || index.file.role === 'legacy-agent';
}

function isConversational(r: RecordSummary): boolean {
  return r.type === 'user' || r.type === 'assistant';
}

function facts(index: SessionIndex): Facts {
  const cached = cache.get(index);
  if (cached !== undefined) return cached;
  const previousConversational = new Int32Array(index.records.length).fill(-1);
  const firstMainBySession = new Map<string | undefined, number>();
  let firstChainRow = -1;
  let last = -1;
  for (const r of index.records) {
    previousConversational[r.ordinal] = last;
    if (!index.isChainRow(r)) continue;
    if (firstChainRow === -1) firstChainRow = r.ordinal;
    if (isMainChainRow(index, r)) {
      if (!firstMainBySession.has(r.sessionId)) firstMainBySession.set(r.sessionId, r.ordinal);
      if (isConversational(r)) last = r.ordinal;
    }
  }
  const result = { previousConversational, firstMainBySession, firstChainRow };
  cache.set(index, result);
  return result;
}

/** The nearest earlier main-chain user/assistant record in file order. */
function previousConversational(index: SessionIndex, r: RecordSummary): RecordSummary | undefined {
  const ordinal = facts(index).previousConversational[r.ordinal] ?? -1;
  return ordinal < 0 ? undefined : index.records[ordinal];
}

/**
 * Why `r`, whose parentUuid is null, is an expected root; undefined when it
 * is not (a mid-file null parent that cuts history on resume).
 */
export function expectedRoot(index: SessionIndex, r: RecordSummary): ExpectedRoot | undefined {
  if (isCompactBoundary(r)) return 'compact-boundary';
  const f = facts(index);
  // Claude Code keeps a repeated uuid's last body at its first position, so
  // a re-written first prompt is still the first record.
  const at = (r.uuid === undefined ? undefined : index.duplicates.get(r.uuid)?.[0]) ?? r;
  if (at.ordinal <= f.firstChainRow) return 'first-record';
  const prev = previousConversational(index, at);
  if (r.isSidechain && !isAgentFile(index)) {
    // A 1.0.x inline Task: a sidechain user row holding the prompt the Task
    // tool sent starts its own tree inside the main file.
    return r.type === 'user' && r.toolResultIds.length === 0 ? 'sidechain-root' : undefined;
  }
  // Preamble: rows written before the first user/assistant row of the
  // conversation (SessionStart hooks, local commands) are roots by design.
  if (prev === undefined) return 'first-record';
  // A copied or continued conversation inside the same file starts anew.
  if (r.sessionId !== undefined && prev.sessionId !== undefined && r.sessionId !== prev.sessionId) {
    return 'new-session-id';
  }
  // The person pressed Esc and typed the prompt again (peers.md §3).
  if (r.type === 'user' && prev.type === 'user' && prev.excerpt.startsWith(INTERRUPT_MARKER)) {
    return 'after-interrupt';
  }
  return undefined;
}

/** Milliseconds `claude --resume`'s chain walk looks back for a stand-in parent. */
export const TIMESTAMP_BRIDGE_MS = 5_000;
