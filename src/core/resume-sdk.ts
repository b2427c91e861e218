/**
 * What the Agent SDK's reader (`getSessionMessages` of
 * `@anthropic-ai/claude-agent-sdk`, the way Claude Code's own tools and the
 * SDK read sessions) returns for one file: `resume.sdk`.
 *
 * That reader is simpler than the CLI's loader (resume-cli.ts): the leaf is
 * chosen by file position only (no timestamps, no `last-prompt`
 * checkpoints); the chain walk stops at a null, missing or repeated parent,
 * with no 5-second bridge; progress rows are walked through; rows sharing an
 * assistant `message.id` and their tool results are put back; queued
 * commands (messages typed while a turn ran) become user messages; meta,
 * sidechain and team rows are filtered out. Bad lines are lost, except those
 * with only leading NUL/space bytes, and a BOM costs the first line. Files
 * over 5 MiB drop everything before the last compact boundary without
 * preserved info. Not modelled: voice-call rows, and the reader's count of
 * queued commands absorbed mid-turn (both rare). Checked against the real
 * reader by the differential test in test/oracle.
 */
import { type RecordSummary, withFields } from './records.js';
import type { SessionIndex } from './session-index.js';
import { ListTable } from './collections.js';

/** Why the SDK reader's walk back from the leaf ended. */
export type WalkEnd =
  | { readonly kind: 'root'; readonly at: RecordSummary }
  | { readonly kind: 'missing-parent'; readonly at: RecordSummary }
  | { readonly kind: 'cycle'; readonly at: RecordSummary }
  | { readonly kind: 'empty' };

const FIVE_MIB = 5 * 1024 * 1024;
const READER_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'progress', 'system', 'attachment']);
/** Meta rows from these origins are shown to the person, so the reader keeps them. */
const VISIBLE_META_ORIGINS: ReadonlySet<string> = new Set([
  'channel',
  'observer',
  'observer-activity',
  'slack-ping',
  'voice-call',
  'peer',
]);

function isMessage(r: RecordSummary): boolean {
  return r.type === 'user' || r.type === 'assistant';
}

/**
 * The reader's view of the file: its rows in file order, with the uuid map
 * (last body wins, first position kept) and parent links after partial
 * compaction relinks.
 */
interface Graph {
  readonly rows: readonly RecordSummary[];
  readonly byUuid: ReadonlyMap<string, RecordSummary>;
  /** Position in `rows` of a uuid's last occurrence (leaf ranking); -1 when absent. */
  lastPosition(uuid: string): number;
  /** Position in `rows` of a uuid's first occurrence (map order); -1 when absent. */
  firstPosition(uuid: string): number;
  parentOf(r: RecordSummary): string | undefined;
  /** The reader throws on this file (malformed preservedMessages). */
  readonly throws: boolean;
}

function readerRows(index: SessionIndex, recoverDamage: boolean): RecordSummary[] {
  const skipBefore = index.stats.byteLength > FIVE_MIB ? index.stats.lastSkipBoundaryLine : 0;
  const rows: RecordSummary[] = [];
  for (const r of index.records) {
    if (r.line < skipBefore || !READER_TYPES.has(r.type) || r.uuid === undefined) continue;
    if (!recoverDamage) {
      if (r.recovery === 'nul-stripped' || r.recovery === 'glued-split') continue;
      if (r.line === 1 && index.stats.hasBom) continue;
    }
    rows.push(r);
  }
  return rows;
}

/** Records beyond the first of each repeated uuid: with the uuid map's size, the records that carry a uuid. */
function duplicateCopies(index: SessionIndex): number {
  let extra = 0;
  for (const copies of index.duplicates.values()) extra += copies.length - 1;
  return extra;
}

function buildGraph(
  index: SessionIndex,
  rows: readonly RecordSummary[],
  override: ((r: RecordSummary) => string | null | undefined) | undefined,
): Graph {
  // Positions by record ordinal rather than two more maps keyed by uuid:
  // the last occurrence is the record the uuid map keeps, and only a
  // duplicated uuid has a first occurrence of its own.
  const positionOf = new Int32Array(rows.length === 0 ? 0 : (rows[rows.length - 1] as RecordSummary).ordinal + 1);
  const firstOfDuplicate = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) positionOf[(rows[i] as RecordSummary).ordinal] = i;
  let byUuid: ReadonlyMap<string, RecordSummary>;
  if (rows.length === index.byUuid.size + duplicateCopies(index)) {
    // Every record with a uuid is a row of the reader, in the same order:
    // its map is the index's own (last body, first position).
    byUuid = index.byUuid;
    for (const [uuid, copies] of index.duplicates) firstOfDuplicate.set(uuid, positionOf[(copies[0] as RecordSummary).ordinal] as number);
  } else {
    const own = new Map<string, RecordSummary>();
    for (const r of rows) {
      const uuid = r.uuid as string;
      const earlier = own.get(uuid);
      if (earlier !== undefined && !firstOfDuplicate.has(uuid)) firstOfDuplicate.set(uuid, positionOf[earlier.ordinal] as number);
      own.set(uuid, r);
    }
    byUuid = own;
  }
  const lastPosition = (uuid: string): number => {
    const r = byUuid.get(uuid);
    return r === undefined ? -1 : (positionOf[r.ordinal] as number);
  };
  const firstPosition = (uuid: string): number => firstOfDuplicate.get(uuid) ?? lastPosition(uuid);
  const relinked = new Map<string, string | undefined>();
  const baseParent = (r: RecordSummary): string | undefined => {
    const uuid = r.uuid as string;
    if (relinked.has(uuid)) return relinked.get(uuid);
    const overridden = override?.(r);
    const p = overridden === undefined ? r.parentUuid : overridden;
    return typeof p === 'string' && p !== '' ? p : undefined;
  };
  let throws = false;
  // Partial compaction: every boundary with preserved info relinks, in map order.
  // A map keeps a key where it was first set: first-occurrence order, last bodies.
  const ordered = [...byUuid.values()];
  for (const boundary of ordered) {
    const info = boundary.preserved;
    if (boundary.type !== 'system' || boundary.subtype !== 'compact_boundary' || info === undefined) continue;
    if (info.kind === 'messages') {
      if (info.uuids === undefined) {
        throws = true;
        continue;
      }
      if (info.uuids.length === 0 || info.uuids.some((u) => !byUuid.has(u))) continue;
      let previous = info.anchorUuid;
      for (const u of info.uuids) {
        relinked.set(u, previous);
        previous = u;
      }
      const first = info.uuids[0];
      const last = info.uuids[info.uuids.length - 1];
      for (const r of ordered) {
        if (r.uuid !== first && info.anchorUuid !== undefined && baseParent(r) === info.anchorUuid) relinked.set(r.uuid as string, last);
      }
    } else {
      const head = info.headUuid === undefined ? undefined : byUuid.get(info.headUuid);
      if (head !== undefined) relinked.set(info.headUuid as string, info.anchorUuid);
      for (const r of ordered) {
        if (r.uuid !== info.headUuid && info.anchorUuid !== undefined && baseParent(r) === info.anchorUuid) {
          relinked.set(r.uuid as string, info.tailUuid);
        }
      }
    }
  }
  return { rows, byUuid, lastPosition, firstPosition, parentOf: baseParent, throws };
}

function isLeafCandidate(r: RecordSummary): boolean {
  return !r.isSidechain && !r.teamName && r.type !== 'progress' && !(r.type === 'attachment' && r.attachmentType === 'fork_briefing');
}

/** Bits of {@link chooseLeaf}'s marks: a leaf candidate names the row as its parent; any row does. */
const CANDIDATE_CHILD = 1;
const ANY_CHILD = 2;

function chooseLeaf(graph: Graph): RecordSummary | undefined {
  // By the ordinal of the row a parent link names (a uuid names one row of
  // the map): two sets of every parent uuid cost more than the rest of the choice.
  const hasChild = new RecordMarks(graph);
  for (const r of graph.byUuid.values()) {
    const p = graph.parentOf(r);
    const parent = p === undefined ? undefined : graph.byUuid.get(p);
    if (parent === undefined) continue;
    hasChild.mark(parent, isLeafCandidate(r) ? CANDIDATE_CHILD | ANY_CHILD : ANY_CHILD);
  }
  const position = (r: RecordSummary): number => graph.lastPosition(r.uuid as string);
  const candidates = [...graph.byUuid.values()]
    .filter((r) => isLeafCandidate(r) && !hasChild.has(r, CANDIDATE_CHILD))
    .sort((a, b) => position(b) - position(a));
  const dead = new Set<string>();
  for (const candidate of candidates) {
    const path: string[] = [];
    const seen = new Set<string>();
    let current: RecordSummary | undefined = candidate;
    while (current !== undefined && !dead.has(current.uuid as string) && !seen.has(current.uuid as string)) {
      if (isMessage(current)) return current;
      seen.add(current.uuid as string);
      path.push(current.uuid as string);
      const p = graph.parentOf(current);
      current = p === undefined ? undefined : graph.byUuid.get(p);
    }
    for (const u of path) dead.add(u);
  }
  // Fallback: every terminal row, walked up to its nearest message.
  const found: RecordSummary[] = [];
  for (const terminal of graph.byUuid.values()) {
    if (hasChild.has(terminal, ANY_CHILD)) continue;
    const seen = new Set<string>();
    let current: RecordSummary | undefined = terminal;
    while (current !== undefined && !seen.has(current.uuid as string)) {
      seen.add(current.uuid as string);
      if (isMessage(current)) {
        found.push(current);
        break;
      }
      const p = graph.parentOf(current);
      current = p === undefined ? undefined : graph.byUuid.get(p);
    }
  }
  if (found.length === 0) return undefined;
  const preferred = found.filter((r) => !r.isSidechain && !r.teamName && !r.isMeta);
  const pool = preferred.length > 0 ? preferred : found;
  return pool.reduce((best, r) => (position(r) > position(best) ? r : best));
}

interface Chain {
  readonly rows: RecordSummary[];
  readonly end: WalkEnd;
}

function walkChain(graph: Graph, leaf: RecordSummary): Chain {
  const rows: RecordSummary[] = [];
  const seen = new RecordSet(graph);
  let current = graph.byUuid.get(leaf.uuid as string) as RecordSummary;
  for (;;) {
    rows.push(current);
    seen.add(current);
    const p = graph.parentOf(current);
    if (p === undefined) return { rows: rows.reverse(), end: { kind: 'root', at: current } };
    const parent = graph.byUuid.get(p);
    if (parent === undefined) return { rows: rows.reverse(), end: { kind: 'missing-parent', at: current } };
    if (seen.has(parent)) return { rows: rows.reverse(), end: { kind: 'cycle', at: current } };
    current = parent;
  }
}

function sameSide(a: RecordSummary, b: RecordSummary): boolean {
  return a.isSidechain === b.isSidechain && a.agentId === b.agentId;
}

/**
 * A set of a graph's records, by ordinal. Within one graph a uuid names one
 * record, so this is a set of uuids that hashes nothing: on a 200,000-record
 * session the chain's uuid set was one of the larger costs of reading it.
 */
class RecordSet {
  private readonly members: RecordMarks;

  constructor(graph: Graph) {
    this.members = new RecordMarks(graph);
  }

  has(r: RecordSummary): boolean {
    return this.members.has(r, 1);
  }

  add(r: RecordSummary): void {
    this.members.mark(r, 1);
  }
}

/** Bits per record of a graph, by ordinal. */
class RecordMarks {
  private readonly marks: Uint8Array;

  constructor(graph: Graph) {
    const last = graph.rows[graph.rows.length - 1];
    this.marks = new Uint8Array(last === undefined ? 0 : last.ordinal + 1);
  }

  has(r: RecordSummary, bits: number): boolean {
    return ((this.marks[r.ordinal] as number) & bits) !== 0;
  }

  mark(r: RecordSummary, bits: number): void {
    this.marks[r.ordinal] = (this.marks[r.ordinal] as number) | bits;
  }
}

/**
 * Puts back the rows of each assistant API response on the chain that the
 * walk did not pass through (one row per content block), with the tool
 * results that answer them, sorted by timestamp after the response's last
 * chain row.
 */
function recoverSiblings(graph: Graph, chain: readonly RecordSummary[]): RecordSummary[] {
  const assistants = chain.filter((r) => r.type === 'assistant');
  if (assistants.length === 0) return [...chain];
  const onChain = new RecordSet(graph);
  for (const r of chain) onChain.add(r);
  // Only rows off the chain can be put back: an assistant row of some
  // response, or a tool-result row. A session read along one unbroken
  // branch has none, and needs none of the maps below.
  let offChainCandidates = false;
  for (const r of graph.byUuid.values()) {
    if (onChain.has(r)) continue;
    if ((r.type === 'assistant' && r.messageId !== undefined) || (r.type === 'user' && r.toolResultIds.length > 0)) {
      offChainCandidates = true;
      break;
    }
  }
  if (!offChainCandidates) return [...chain];
  const chainRowById = new Map<string, RecordSummary>();
  for (const a of assistants) if (a.messageId !== undefined) chainRowById.set(a.messageId, a);
  // Only the responses on the chain are read below, and only results
  // attached to one of their rows: a chain broken in the middle leaves
  // half the file off it, and those tables for every response cost more
  // than the rest of the reading.
  const byMessageId = new ListTable<string, RecordSummary>();
  const ofChainResponse = (uuid: string): boolean => {
    const row = graph.byUuid.get(uuid);
    return row !== undefined && row.type === 'assistant' && row.messageId !== undefined && chainRowById.has(row.messageId);
  };
  const toolOwner = new Map<string, RecordSummary | null>();
  const results: RecordSummary[] = [];
  for (const r of graph.byUuid.values()) {
    const id = r.type === 'assistant' ? r.messageId : undefined;
    if (id !== undefined) {
      if (chainRowById.has(id)) byMessageId.add(id, r);
      for (const t of r.toolUseIds) {
        const owner = toolOwner.get(t);
        toolOwner.set(t, owner === undefined || (owner !== null && owner.messageId === id) ? r : null);
      }
    } else if (r.type === 'user' && graph.parentOf(r) !== undefined && r.toolResultIds.length > 0) {
      results.push(r);
    }
  }
  const attached = new Map<string, RecordSummary[]>();
  const attach = (key: string, r: RecordSummary): void => {
    if (!ofChainResponse(key)) return;
    const list = attached.get(key);
    // A key collects a handful of results at most: a scan beats a pair set.
    if (list === undefined) attached.set(key, [r]);
    else if (!list.some((other) => other.uuid === r.uuid)) list.push(r);
  };
  for (const r of results) {
    const parent = graph.parentOf(r) as string;
    attach(parent, r);
    const sourceId = r.sourceToolAssistantUuid;
    const source = sourceId !== undefined && sourceId !== parent ? graph.byUuid.get(sourceId) : undefined;
    if (source !== undefined && sameSide(r, source)) attach(source.uuid as string, r);
    for (const t of r.toolResultIds) {
      const owner = toolOwner.get(t);
      if (owner !== undefined && owner !== null && sameSide(r, owner)) attach(owner.uuid as string, r);
    }
  }
  const answered = new Set<string>();
  for (const r of chain) for (const t of r.toolResultIds) answered.add(t);
  const pending: PendingSiblings = { graph, onChain, attached, toolOwner, answered };
  const done = new Set<string>();
  const inserts = new Map<string, RecordSummary[]>();
  for (const a of assistants) {
    const id = a.messageId;
    if (id === undefined || done.has(id)) continue;
    done.add(id);
    const found = byMessageId.get(id);
    const siblings = found.length > 0 ? found : [a];
    // Nearly every response is whole on the chain with all its results:
    // say so before allocating anything for it.
    const complete = siblings.every(
      (s) => onChain.has(s) && (attached.get(s.uuid as string) ?? []).every((r) => onChain.has(r)),
    );
    if (complete) continue;
    const added = offChainSiblings(pending, siblings);
    if (added.length === 0) continue;
    for (const r of added) onChain.add(r);
    inserts.set(chainRowById.get(id)?.uuid as string, added);
  }
  if (inserts.size === 0) return [...chain];
  const out: RecordSummary[] = [];
  for (const r of chain) {
    out.push(r);
    const added = inserts.get(r.uuid as string);
    if (added !== undefined) out.push(...added);
  }
  return out;
}

/** What {@link offChainSiblings} needs of the chain being read. */
interface PendingSiblings {
  readonly graph: Graph;
  readonly onChain: RecordSet;
  /** Tool-result rows by the uuid of the row they answer. */
  readonly attached: ReadonlyMap<string, readonly RecordSummary[]>;
  readonly toolOwner: ReadonlyMap<string, RecordSummary | null>;
  /** Tool-use ids answered on the chain. */
  readonly answered: ReadonlySet<string>;
}

/**
 * The rows of one API response missing from the chain, and the results that
 * answer them, in the order the reader adds them. A function of its own
 * because it rarely runs: kept apart, it is not optimised along with the hot
 * loops of {@link recoverSiblings}.
 */
function offChainSiblings(pending: PendingSiblings, siblings: readonly RecordSummary[]): RecordSummary[] {
  const { graph, onChain, attached, toolOwner, answered } = pending;
  const byTimestamp = (a: RecordSummary, b: RecordSummary): number => (a.timestamp ?? '').localeCompare(b.timestamp ?? '');
  const firstPos = (r: RecordSummary): number => {
    const position = graph.firstPosition(r.uuid as string);
    return position === -1 ? Number.MAX_SAFE_INTEGER : position;
  };
  const siblingIds = new Set(siblings.map((s) => s.uuid as string));
  const offChain = siblings.filter((s) => !onChain.has(s));
  const direct: RecordSummary[] = [];
  const indirect: RecordSummary[] = [];
  const seen = new Set<string>();
  for (const s of siblings) {
    for (const r of attached.get(s.uuid as string) ?? []) {
      if (onChain.has(r) || seen.has(r.uuid as string)) continue;
      seen.add(r.uuid as string);
      (siblingIds.has(graph.parentOf(r) as string) ? direct : indirect).push(r);
    }
  }
  if (indirect.length > 0) {
    const covered = new Set(answered);
    for (const r of direct) for (const t of r.toolResultIds) covered.add(t);
    indirect.sort((x, y) => firstPos(x) - firstPos(y));
    for (const r of indirect) {
      const useful = r.toolResultIds.some((t) => {
        const owner = toolOwner.get(t);
        return !covered.has(t) && owner !== undefined && owner !== null && siblingIds.has(owner.uuid as string);
      });
      if (!useful) continue;
      for (const t of r.toolResultIds) covered.add(t);
      direct.push(r);
    }
  }
  offChain.sort(byTimestamp);
  direct.sort(byTimestamp);
  return [...offChain, ...direct];
}

function rawParent(r: RecordSummary): string | undefined {
  return typeof r.parentUuid === 'string' && r.parentUuid !== '' ? r.parentUuid : undefined;
}

/**
 * Queued commands (messages typed while a turn ran) that hang below the
 * leaf, directly or through other non-message rows, and that no abandoned
 * message descends from: the reader appends them after the chain.
 */
function trailingQueued(graph: Graph, chain: readonly RecordSummary[], leaf: RecordSummary): RecordSummary[] {
  const kids = new Map<string, RecordSummary[]>();
  for (const row of graph.rows) {
    if (isMessage(row)) continue;
    const body = graph.byUuid.get(row.uuid as string);
    const raw = rawParent(row);
    const linked = body === undefined ? undefined : graph.parentOf(body);
    for (const key of linked === raw ? [raw] : [raw, linked]) {
      if (key === undefined) continue;
      const list = kids.get(key);
      if (list === undefined) kids.set(key, [row]);
      else list.push(row);
    }
  }
  const visited = new Set(chain.map((r) => r.uuid as string));
  const offChainAncestors = new Set<string>();
  for (const row of graph.rows) {
    if (!isMessage(row) || row.isSidechain || row.teamName || visited.has(row.uuid as string)) continue;
    let up = rawParent(row);
    let ancestor = up === undefined ? undefined : graph.byUuid.get(up);
    while (ancestor !== undefined && !visited.has(ancestor.uuid as string) && !offChainAncestors.has(ancestor.uuid as string)) {
      offChainAncestors.add(ancestor.uuid as string);
      up = rawParent(ancestor);
      ancestor = up === undefined ? undefined : graph.byUuid.get(up);
    }
  }
  const byTime = (a: RecordSummary, b: RecordSummary): number => {
    const x = a.timestamp ?? '';
    const y = b.timestamp ?? '';
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const out: RecordSummary[] = [];
  const stack: RecordSummary[] = [leaf];
  while (stack.length > 0) {
    const row = stack.pop() as RecordSummary;
    if (row !== leaf) {
      if (visited.has(row.uuid as string)) continue;
      visited.add(row.uuid as string);
      if (row.queued !== undefined && !offChainAncestors.has(row.uuid as string)) out.push(row);
    }
    const children = kids.get(row.uuid as string) ?? [];
    const ordered = children.length > 1 ? [...children].sort(byTime) : children;
    for (let i = ordered.length - 1; i >= 0; i--) {
      const child = ordered[i] as RecordSummary;
      if (!visited.has(child.uuid as string)) stack.push(child);
    }
  }
  return out;
}

/**
 * Turns queued-command attachments into the user messages the reader
 * returns: those a reply follows, and the trailing ones. A caveat-led local
 * command (`<command-name>` then its output) does not count as a prompt.
 */
function convertQueued(list: readonly RecordSummary[], trailing: ReadonlySet<RecordSummary>): RecordSummary[] {
  const completed = new Set<number>();
  list.forEach((r, o) => {
    if (r.type !== 'user' || !r.isMeta || r.commandTag !== 'caveat') return;
    let recorded = false;
    for (let i = o + 1; i < list.length; i++) {
      const a = list[i] as RecordSummary;
      if (a.type === 'assistant') break;
      if (a.type !== 'user' || a.isMeta) continue;
      if (a.commandTag === 'record' && !recorded) recorded = true;
      else if (a.commandTag !== 'output' || !recorded) break;
      completed.add(i);
    }
  });
  const replyFollows: boolean[] = [];
  let next: 'reply' | 'prompt' | undefined;
  for (let o = list.length - 1; o >= 0; o--) {
    const r = list[o] as RecordSummary;
    replyFollows[o] = next === 'reply';
    const toolResultRow = r.type === 'user' && rawParent(r) !== undefined && r.toolResultIds.length > 0;
    if (r.type === 'assistant' || toolResultRow || r.interrupt) next = 'reply';
    else if (r.type === 'user' && !r.isMeta && !r.isCompactSummary && !completed.has(o)) next = 'prompt';
  }
  const uuids = new Set(list.map((r) => r.uuid as string));
  return list.map((r, o) => {
    const q = r.queued;
    if (completed.has(o) || q === undefined || !(replyFollows[o] === true || trailing.has(r))) return r;
    if (!q.hasPrompt || (q.isMeta && !VISIBLE_META_ORIGINS.has(q.originKind ?? '')) || q.forwarded) return r;
    const uuid = q.sourceUuid ?? (r.uuid as string);
    if (uuid !== r.uuid && uuids.has(uuid)) return r;
    uuids.add(uuid);
    return withFields(r, { type: 'user', uuid, isMeta: q.isMeta, originKind: q.originKind });
  });
}

function isReturned(r: RecordSummary): boolean {
  if (!isMessage(r) || r.quietReply || r.isSidechain || r.teamName) return false;
  return !(r.isMeta && !VISIBLE_META_ORIGINS.has(r.originKind ?? ''));
}

export interface SdkReading {
  readonly leaf: RecordSummary | undefined;
  readonly chain: RecordSummary[];
  readonly messages: RecordSummary[];
  readonly end: WalkEnd;
}

function read(graph: Graph): SdkReading {
  const empty: SdkReading = { leaf: undefined, chain: [], messages: [], end: { kind: 'empty' } };
  if (graph.throws) return empty;
  const leaf = chooseLeaf(graph);
  if (leaf === undefined) return empty;
  const walked = walkChain(graph, leaf);
  const chain = recoverSiblings(graph, walked.rows);
  // Both queued-command passes change only rows that carry a queued
  // command, and most files have none.
  if (!graph.rows.some((row) => row.queued !== undefined)) {
    return { leaf, chain, messages: chain.filter(isReturned), end: walked.end };
  }
  const trailing = trailingQueued(graph, chain, leaf);
  const messages = convertQueued([...chain, ...trailing], new Set(trailing)).filter(isReturned);
  return { leaf, chain, messages, end: walked.end };
}


/**
 * The SDK reader's view of a file. With `recoverDamage`, records recovered
 * from damaged lines are read too, and `parentOverride` sets parent links as
 * a repair would (both for the intended conversation).
 */
export function readAsSdk(
  index: SessionIndex,
  options: { recoverDamage?: boolean | undefined; parentOverride?: ((r: RecordSummary) => string | null | undefined) | undefined } = {},
): SdkReading {
  return read(buildGraph(index, readerRows(index, options.recoverDamage === true), options.parentOverride));
}
