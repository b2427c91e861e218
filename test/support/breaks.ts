/**
 * Breaks of the conversation chain, injected into copies of real sessions,
 * for judging the resume model and `cclint fix` against the real Claude Code
 * CLI. Beyond the kinds of corrupt.ts (one break per rule), these are the
 * shapes that decide whether a repair can make a session *worse*:
 *
 * - a later row reusing an earlier row's uuid, with its child naming the
 *   reused uuid or the row's own, lost uuid (the "conflicting duplicate"
 *   of anthropics/claude-code #24304-style files);
 * - a parent link pointing at a wrong, earlier row; a parent row dropped
 *   from the file (a lost write, #22526);
 * - a phantom parent right after a rewind (the conversation forked, and the
 *   abandoned attempt sits in the file before or after the kept one), or
 *   right after inline sidechain rows (1.0.x Task rows in the main file);
 * - a phantom parent among rows with unreadable, equal or out-of-order
 *   timestamps, which decides whether the CLI's 5-second bridge applies;
 * - healthy sessions with a rewind, which no fix may change.
 *
 * Each variant comes with the file a perfect repair would leave (its
 * `baseline`): "the intended conversation" is what the CLI sends for it.
 */
import { createHash } from 'node:crypto';
import { type CorruptionKind, CORRUPTION_KINDS, inject } from './corrupt.js';

export type BreakKind =
  | CorruptionKind
  | 'duplicate-reused'
  | 'duplicate-reused-lost'
  | 'random-parent'
  | 'dropped-line'
  | 'phantom-after-rewind'
  | 'phantom-after-rewind-late'
  | 'phantom-after-sidechain'
  | 'phantom-bad-timestamps'
  | 'phantom-equal-timestamps'
  | 'phantom-out-of-order'
  | 'orphan-root-after-rewind'
  | 'healthy-rewind'
  | 'healthy-rewind-late';

export const BREAK_KINDS: readonly BreakKind[] = [
  ...CORRUPTION_KINDS,
  'duplicate-reused',
  'duplicate-reused-lost',
  'random-parent',
  'dropped-line',
  'phantom-after-rewind',
  'phantom-after-rewind-late',
  'phantom-after-sidechain',
  'phantom-bad-timestamps',
  'phantom-equal-timestamps',
  'phantom-out-of-order',
  'orphan-root-after-rewind',
  'healthy-rewind',
  'healthy-rewind-late',
];

export interface Variant {
  readonly kind: BreakKind;
  readonly text: string;
  /**
   * What a perfect repair would leave: the file the variant was made from
   * (after any healthy reshaping, e.g. an added rewind), less what the break
   * destroyed for good (a torn or dropped row is gone, and its children hang
   * from its parent; a tool result that lost its call stays lost).
   */
  readonly baseline: string;
}

/** The file without the row on `index`, its children hanging from its parent. */
function withoutRow(lines: readonly string[], objs: ReadonlyArray<Obj | undefined>, index: number): string {
  const gone = objs[index] as Obj;
  const out: string[] = [];
  lines.forEach((l, i) => {
    if (i === index) return;
    const o = objs[i];
    out.push(o !== undefined && typeof gone.uuid === 'string' && o.parentUuid === gone.uuid ? JSON.stringify({ ...o, parentUuid: gone.parentUuid ?? null }) : l);
  });
  return join(out);
}

type Obj = Record<string, unknown>;

function fakeUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function hashPick(n: number, seed: string): number {
  return Number.parseInt(createHash('sha256').update(seed).digest('hex').slice(0, 8), 16) % n;
}

interface Parsed {
  readonly lines: string[];
  readonly objs: Array<Obj | undefined>;
}

function parse(text: string): Parsed {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const objs = lines.map((l) => {
    try {
      const v = JSON.parse(l) as unknown;
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
    } catch {
      return undefined;
    }
  });
  return { lines, objs };
}

const join = (lines: readonly string[]): string => `${lines.join('\n')}\n`;
const isMessage = (o: Obj | undefined): o is Obj =>
  o !== undefined && (o.type === 'user' || o.type === 'assistant') && typeof o.uuid === 'string' && o.isSidechain !== true;

function contentOf(o: Obj): unknown {
  return (o.message as Obj | undefined)?.content;
}

function isPrompt(o: Obj): boolean {
  if (o.type !== 'user' || o.isMeta === true || o.isCompactSummary === true) return false;
  const c = contentOf(o);
  if (typeof c === 'string') return !c.startsWith('<') && !c.startsWith('[Request interrupted');
  return Array.isArray(c) && c.length > 0 && c.every((b) => (b as Obj | null)?.type === 'text') &&
    !String((c[0] as Obj).text ?? '').startsWith('<');
}

/** Main-chain message rows with a string parent, away from the ends of the file. */
function midIndexes(objs: ReadonlyArray<Obj | undefined>): number[] {
  const out: number[] = [];
  objs.forEach((o, i) => {
    if (isMessage(o) && typeof o.parentUuid === 'string') out.push(i);
  });
  return out.slice(Math.min(3, out.length), Math.max(0, out.length - 2));
}

function shiftTime(ts: unknown, ms: number): unknown {
  if (typeof ts !== 'string') return ts;
  const t = Date.parse(ts);
  return Number.isNaN(t) ? ts : new Date(t + ms).toISOString();
}

/** Rewrites every id of a row (uuid, message id, tool ids, text) so that it is a copy from another attempt. */
function abandonedCopy(o: Obj, seed: string, uuidMap: Map<string, string>, toolMap: Map<string, string>): Obj {
  const copy = JSON.parse(JSON.stringify(o)) as Obj;
  const uuid = fakeUuid(`${seed}:u:${String(o.uuid)}`);
  uuidMap.set(o.uuid as string, uuid);
  copy.uuid = uuid;
  if (typeof o.parentUuid === 'string' && uuidMap.has(o.parentUuid)) copy.parentUuid = uuidMap.get(o.parentUuid);
  const m = copy.message as Obj | undefined;
  if (m !== undefined) {
    if (typeof m.id === 'string') m.id = `${m.id}_abandoned`;
    const tool = (id: unknown): unknown => {
      if (typeof id !== 'string') return id;
      let t = toolMap.get(id);
      if (t === undefined) {
        t = `toolu_${fakeUuid(`${seed}:t:${id}`).replace(/-/g, '').slice(0, 24)}`;
        toolMap.set(id, t);
      }
      return t;
    };
    if (typeof m.content === 'string') m.content = `(first attempt) ${m.content}`;
    else if (Array.isArray(m.content)) {
      m.content = m.content.map((b) => {
        const block = { ...(b as Obj) };
        if (block.type === 'text' && typeof block.text === 'string') block.text = `(first attempt) ${block.text}`;
        if (block.type === 'thinking' && typeof block.thinking === 'string') {
          // Another response, so another signature: the API signs each thinking text.
          block.thinking = `(first attempt) ${block.thinking}`;
          if (typeof block.signature === 'string' && block.signature !== '') {
            block.signature = Buffer.from(`${seed}:s:${block.signature}`).toString('base64');
          }
        }
        if (block.type === 'tool_use') block.id = tool(block.id);
        if (block.type === 'tool_result') block.tool_use_id = tool(block.tool_use_id);
        return block;
      });
    }
  }
  if (typeof o.sourceToolAssistantUUID === 'string' && uuidMap.has(o.sourceToolAssistantUUID)) {
    copy.sourceToolAssistantUUID = uuidMap.get(o.sourceToolAssistantUUID);
  }
  delete copy.toolUseResult;
  if (typeof copy.requestId === 'string') copy.requestId = `${copy.requestId}_a`;
  return copy;
}

interface Rewound {
  readonly text: string;
  /** Index (in the new file) of the first row of the kept branch after the fork. */
  readonly keptStart: number;
  /** Uuid of the abandoned branch's last row. */
  readonly abandonedTip: string;
}

/**
 * Adds a rewind: at a real prompt, the person went back and the first
 * attempt (the prompt and the rows up to the next prompt, ids renamed and
 * texts marked) hangs off the same parent as an abandoned branch. `late`
 * writes the attempt after the kept branch (and pins the kept branch with a
 * `last-prompt` checkpoint, as Claude Code does after a rewind); otherwise it
 * sits before the kept branch. Either way the kept branch was written after
 * the attempt: every row from the fork on moves to a minute after the
 * attempt's last row.
 */
function addRewind(text: string, seed: string, late: boolean): Rewound | undefined {
  const { lines, objs } = parse(text);
  const prompts = midIndexes(objs).filter((i) => isPrompt(objs[i] as Obj));
  if (prompts.length === 0) return undefined;
  const start = prompts[hashPick(prompts.length, `${seed}:rewind`)] as number;
  let end = start + 1;
  while (end < objs.length && !(isMessage(objs[end]) && isPrompt(objs[end] as Obj))) end++;
  const branch: number[] = [];
  // Every row of the attempt with a uuid (progress and hook rows too: the
  // rows after them name them as parents).
  for (let i = start; i < end; i++) {
    const o = objs[i];
    if (o !== undefined && typeof o.uuid === 'string' && o.isSidechain !== true) branch.push(i);
  }
  if (branch.length < 2) return undefined;
  const uuidMap = new Map<string, string>();
  const toolMap = new Map<string, string>();
  const copies = branch.map((i) => abandonedCopy(objs[i] as Obj, seed, uuidMap, toolMap));
  // The kept branch starts a minute after the attempt's last row.
  const times = branch.map((i) => Date.parse(String((objs[i] as Obj).timestamp))).filter((t) => !Number.isNaN(t));
  const SHIFT = (times.length > 0 ? Math.max(...times) - Math.min(...times) : 0) + 60_000;
  const out: string[] = [];
  let keptStart = -1;
  const keptTip = [...objs].reverse().find((o) => isMessage(o));
  for (let i = 0; i < lines.length; i++) {
    if (i === start && !late) {
      for (const c of copies) out.push(JSON.stringify(c));
    }
    if (i === start) keptStart = out.length;
    const o = objs[i];
    // The kept branch was written after the attempt was abandoned.
    if (i >= start && o !== undefined && typeof o.timestamp === 'string') {
      out.push(JSON.stringify({ ...o, timestamp: shiftTime(o.timestamp, SHIFT) }));
    } else {
      out.push(lines[i] as string);
    }
  }
  if (late) {
    for (const c of copies) out.push(JSON.stringify(c));
    out.push(JSON.stringify({ type: 'last-prompt', leafUuid: keptTip?.uuid, sessionId: keptTip?.sessionId }));
  }
  return { text: join(out), keptStart, abandonedTip: (copies[copies.length - 1] as Obj).uuid as string };
}

function setLine(lines: readonly string[], index: number, obj: Obj): string[] {
  const out = [...lines];
  out[index] = JSON.stringify(obj);
  return out;
}

/** Returns undefined when the file has no place for this kind of break. */
export function injectBreak(text: string, kind: BreakKind, seed: string): Variant | undefined {
  if ((CORRUPTION_KINDS as readonly string[]).includes(kind)) {
    const injected = inject(text, kind as CorruptionKind, seed);
    if (injected === undefined) return undefined;
    const { lines, objs } = parse(text);
    let baseline = text;
    if (kind === 'invalid-json-torn') baseline = join(lines.slice(0, -1));
    else if (kind === 'invalid-json-garbage') baseline = withoutRow(lines, objs, injected.line - 1);
    // The answer is gone, or answers a call that never was: no repair pairs
    // them again, and the variant itself is the best there is.
    else if (kind === 'dangling-tool-use' || kind === 'orphan-tool-result') baseline = injected.text;
    return { kind, text: injected.text, baseline };
  }
  const { lines, objs } = parse(text);
  const mids = midIndexes(objs);
  if (mids.length === 0) return undefined;
  const pickMid = (salt: string, from = mids): number | undefined =>
    from.length === 0 ? undefined : from[hashPick(from.length, `${seed}:${salt}`)];
  const childrenOf = (uuid: string): number[] => objs.flatMap((o, i) => (o?.parentUuid === uuid ? [i] : []));
  switch (kind) {
    case 'duplicate-reused':
    case 'duplicate-reused-lost': {
      // A row takes the uuid of a main-chain row written before it.
      const at = pickMid('reuse');
      if (at === undefined) return undefined;
      const row = objs[at] as Obj;
      const earlier = mids.filter((i) => i < at - 1);
      const source = pickMid('source', earlier);
      if (source === undefined) return undefined;
      const reused = (objs[source] as Obj).uuid as string;
      let out = setLine(lines, at, { ...row, uuid: reused });
      if (kind === 'duplicate-reused') {
        for (const c of childrenOf(row.uuid as string)) out = setLine(out, c, { ...(objs[c] as Obj), parentUuid: reused });
      }
      return { kind, text: join(out), baseline: text };
    }
    case 'random-parent': {
      const at = pickMid('random');
      if (at === undefined) return undefined;
      const row = objs[at] as Obj;
      const wrong = mids.filter((i) => i < at - 2 && (objs[i] as Obj).uuid !== row.parentUuid);
      const target = pickMid('target', wrong);
      if (target === undefined) return undefined;
      return { kind, text: join(setLine(lines, at, { ...row, parentUuid: (objs[target] as Obj).uuid })), baseline: text };
    }
    case 'dropped-line': {
      const withChild = mids.filter((i) => childrenOf((objs[i] as Obj).uuid as string).length > 0);
      const at = pickMid('drop', withChild);
      if (at === undefined) return undefined;
      return { kind, text: join(lines.filter((_, i) => i !== at)), baseline: withoutRow(lines, objs, at) };
    }
    case 'phantom-after-rewind':
    case 'phantom-after-rewind-late':
    case 'orphan-root-after-rewind': {
      const rewound = addRewind(text, seed, kind === 'phantom-after-rewind-late');
      if (rewound === undefined) return undefined;
      const parsed = parse(rewound.text);
      // The first kept row after the fork whose own parent is a message of
      // the kept branch; for a null parent, not one right after an interrupt
      // marker (a prompt typed again after Esc starts anew by design).
      let at = -1;
      for (let i = rewound.keptStart + 1; i < parsed.objs.length; i++) {
        const o = parsed.objs[i];
        if (!isMessage(o) || typeof o.parentUuid !== 'string') continue;
        const previous = parsed.objs.slice(0, i).reverse().find(isMessage);
        if (kind === 'orphan-root-after-rewind' && JSON.stringify(previous === undefined ? '' : contentOf(previous)).includes('[Request interrupted by user')) continue;
        at = i;
        break;
      }
      if (at === -1) return undefined;
      const row = parsed.objs[at] as Obj;
      const parent = kind === 'orphan-root-after-rewind' ? null : fakeUuid(`${seed}:phantom`);
      return { kind, text: join(setLine(parsed.lines, at, { ...row, parentUuid: parent })), baseline: rewound.text };
    }
    case 'healthy-rewind':
    case 'healthy-rewind-late': {
      const rewound = addRewind(text, seed, kind === 'healthy-rewind-late');
      if (rewound === undefined) return undefined;
      return { kind, text: rewound.text, baseline: rewound.text };
    }
    case 'phantom-after-sidechain': {
      // Inline sidechain rows (a 1.0.x Task) written just before the row, which then names a parent never written.
      const at = pickMid('side');
      if (at === undefined) return undefined;
      const row = objs[at] as Obj;
      const prev = objs[at - 1];
      const t = typeof prev?.timestamp === 'string' ? prev.timestamp : row.timestamp;
      const sideRoot = fakeUuid(`${seed}:side0`);
      const side = [
        { parentUuid: null, isSidechain: true, type: 'user', message: { role: 'user', content: 'Search the code for the config loader' }, uuid: sideRoot, timestamp: shiftTime(t, 100), sessionId: row.sessionId, cwd: row.cwd, userType: 'external', version: row.version },
        { parentUuid: sideRoot, isSidechain: true, type: 'assistant', message: { id: `msg_side_${seed.length}`, role: 'assistant', model: 'claude-sonnet-4-20250514', content: [{ type: 'text', text: 'Found it in src/config.ts.' }] }, uuid: fakeUuid(`${seed}:side1`), timestamp: shiftTime(t, 200), sessionId: row.sessionId, cwd: row.cwd, userType: 'external', version: row.version },
      ].map((o) => JSON.stringify(o));
      const out = [...lines.slice(0, at), ...side, JSON.stringify({ ...row, parentUuid: fakeUuid(`${seed}:phantom`) }), ...lines.slice(at + 1)];
      const baseline = [...lines.slice(0, at), ...side, ...lines.slice(at)];
      return { kind, text: join(out), baseline: join(baseline) };
    }
    case 'phantom-bad-timestamps':
    case 'phantom-equal-timestamps':
    case 'phantom-out-of-order': {
      const at = pickMid('ts');
      if (at === undefined) return undefined;
      const row = objs[at] as Obj;
      const out = [...lines];
      const baseline = [...lines];
      const around = [at - 2, at - 1, at].filter((i) => i >= 0 && objs[i] !== undefined && typeof (objs[i] as Obj).timestamp === 'string');
      for (const i of around) {
        const o = objs[i] as Obj;
        let ts: unknown = o.timestamp;
        if (kind === 'phantom-bad-timestamps') ts = `${String(o.timestamp).slice(0, 10)} at noon`;
        else if (kind === 'phantom-equal-timestamps') ts = row.timestamp;
        else if (i !== at) ts = shiftTime(row.timestamp, 2_000 * (at - i));
        baseline[i] = JSON.stringify({ ...o, timestamp: ts });
        out[i] = JSON.stringify({ ...o, ...(i === at ? { parentUuid: fakeUuid(`${seed}:phantom`) } : {}), timestamp: ts });
      }
      return { kind, text: join(out), baseline: join(baseline) };
    }
  }
  return undefined;
}
