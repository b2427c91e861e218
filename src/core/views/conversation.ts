/**
 * The conversation a person reads: the messages `claude --resume` loads, or
 * for a subagent's transcript (never resumed) its own thread. Shared by
 * `show`, `tree`, `export` and the report.
 */
import type { RecordSummary } from '../records.js';
import type { SessionIndex } from '../session-index.js';

/**
 * A subagent's transcript (its messages are all sidechain rows, as in
 * `<session>/subagents/agent-*.jsonl`) is never resumed, so the resume model
 * loads nothing from it. `show` and `tree` present its own thread instead:
 * the chain back from its last message. Undefined for any other file.
 */
export function subagentChain(index: SessionIndex): RecordSummary[] | undefined {
  let last: RecordSummary | undefined;
  for (const r of index.effectiveRecords()) {
    if (r.type !== 'user' && r.type !== 'assistant') continue;
    if (!r.isSidechain) return undefined;
    last = r;
  }
  if (last === undefined) return undefined;
  const chain: RecordSummary[] = [];
  const seen = new Set<RecordSummary>();
  for (let r: RecordSummary | undefined = last; r !== undefined && !seen.has(r); ) {
    seen.add(r);
    chain.push(r);
    r = typeof r.parentUuid === 'string' ? index.byUuid.get(r.parentUuid) : undefined;
  }
  return chain.reverse();
}

/** The messages of a subagent's thread, as `show` lists them. */
export function threadMessages(chain: readonly RecordSummary[]): RecordSummary[] {
  return chain.filter((r) => (r.type === 'user' || r.type === 'assistant') && !r.isMeta);
}

