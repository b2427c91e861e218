/**
 * Injects one corruption of a known kind into a copy of a real transcript,
 * and says where a linter must find it. Used by the detection-accuracy test
 * (the right rule on the right record) and by the differential test against
 * the official reader (broken variants, not only healthy files).
 *
 * Every injection mirrors a real-world failure from peers.md §3: a parent
 * that was never written (#22526), a null parent in mid-file, a record
 * written twice, a cycle from a reused uuid, a torn or glued line after a
 * crash, a cwd whose case differs from its folder (#90588), and broken
 * tool pairing (#8484).
 */
import { createHash } from 'node:crypto';

export type CorruptionKind =
  | 'phantom-parent'
  | 'orphan-root'
  | 'duplicate-identical'
  | 'duplicate-different'
  | 'parent-cycle'
  | 'invalid-json-torn'
  | 'invalid-json-glued'
  | 'invalid-json-nul'
  | 'invalid-json-garbage'
  | 'cwd-case-mismatch'
  | 'string-content'
  | 'dangling-tool-use'
  | 'orphan-tool-result';

export const CORRUPTION_KINDS: readonly CorruptionKind[] = [
  'phantom-parent',
  'orphan-root',
  'duplicate-identical',
  'duplicate-different',
  'parent-cycle',
  'invalid-json-torn',
  'invalid-json-glued',
  'invalid-json-nul',
  'invalid-json-garbage',
  'cwd-case-mismatch',
  'string-content',
  'dangling-tool-use',
  'orphan-tool-result',
];

/**
 * Kinds a repair can undo completely (a torn tail's record is gone for good,
 * and cwd case, string content and tool pairing are not breaks of the chain).
 */
export const REPAIRABLE_KINDS: readonly CorruptionKind[] = [
  'phantom-parent',
  'orphan-root',
  'duplicate-identical',
  'duplicate-different',
  'parent-cycle',
  'invalid-json-glued',
  'invalid-json-nul',
];

export interface Injected {
  readonly kind: CorruptionKind;
  /** The corrupted file's text. */
  readonly text: string;
  readonly ruleId: string;
  /** 1-based line where the finding must be. */
  readonly line: number;
  readonly uuid?: string | undefined;
  /** Project folder name the file must sit in (for cwd checks). */
  readonly folder?: string | undefined;
}

type Obj = Record<string, unknown>;

interface Row {
  readonly index: number;
  readonly obj: Obj;
}

function fakeUuid(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function parse(lines: readonly string[]): (Obj | undefined)[] {
  return lines.map((l) => {
    try {
      const v = JSON.parse(l) as unknown;
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
    } catch {
      return undefined;
    }
  });
}

const isChain = (o: Obj | undefined): o is Obj =>
  o !== undefined && ['user', 'assistant', 'system', 'attachment'].includes(o.type as string) && typeof o.uuid === 'string';

function content(o: Obj): unknown {
  return (o.message as Obj | undefined)?.content;
}

function hasBlock(o: Obj, type: string): boolean {
  const c = content(o);
  return Array.isArray(c) && c.some((b) => (b as Obj | null)?.type === type);
}

/** Mid-file main-chain message rows with a string parent, in file order. */
function midRows(objs: readonly (Obj | undefined)[]): Row[] {
  const rows: Row[] = [];
  objs.forEach((o, index) => {
    if (!isChain(o) || o.isSidechain === true) return;
    if (o.type !== 'user' && o.type !== 'assistant') return;
    if (typeof o.parentUuid !== 'string') return;
    rows.push({ index, obj: o });
  });
  // Keep clear of the first and last few rows.
  return rows.slice(Math.min(3, rows.length), Math.max(0, rows.length - 2));
}

function pick<T>(items: readonly T[], seed: string): T | undefined {
  if (items.length === 0) return undefined;
  const h = Number.parseInt(createHash('sha256').update(seed).digest('hex').slice(0, 8), 16);
  return items[h % items.length];
}

function join(lines: readonly string[], finalNewline = true): string {
  return lines.join('\n') + (finalNewline ? '\n' : '');
}

/** Returns undefined when the file has no place for this kind of corruption. */
export function inject(text: string, kind: CorruptionKind, seed: string): Injected | undefined {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const objs = parse(lines);
  const rows = midRows(objs);
  const set = (index: number, obj: Obj): string[] => {
    const out = [...lines];
    out[index] = JSON.stringify(obj);
    return out;
  };
  switch (kind) {
    case 'phantom-parent': {
      const row = pick(rows, seed);
      if (row === undefined) return undefined;
      const out = set(row.index, { ...row.obj, parentUuid: fakeUuid(`${seed}:phantom`) });
      return { kind, text: join(out), ruleId: 'phantom-parent', line: row.index + 1, uuid: row.obj.uuid as string };
    }
    case 'orphan-root': {
      const candidates = rows.filter((r) => {
        const prev = objs.slice(0, r.index).reverse().find((o) => isChain(o) && o.isSidechain !== true && (o.type === 'user' || o.type === 'assistant'));
        const text = JSON.stringify(prev === undefined ? '' : content(prev));
        return prev !== undefined && !text.includes('[Request interrupted by user');
      });
      const row = pick(candidates, seed);
      if (row === undefined) return undefined;
      const out = set(row.index, { ...row.obj, parentUuid: null });
      return { kind, text: join(out), ruleId: 'orphan-root', line: row.index + 1, uuid: row.obj.uuid as string };
    }
    case 'duplicate-identical':
    case 'duplicate-different': {
      const row = pick(rows, seed);
      if (row === undefined) return undefined;
      const copy =
        kind === 'duplicate-identical'
          ? (lines[row.index] as string)
          : JSON.stringify({ ...row.obj, timestamp: new Date(Date.parse(row.obj.timestamp as string) + 1).toISOString() });
      const out = [...lines.slice(0, row.index + 1), copy, ...lines.slice(row.index + 1)];
      return { kind, text: join(out), ruleId: 'duplicate-uuid', line: row.index + 2, uuid: row.obj.uuid as string };
    }
    case 'parent-cycle': {
      // Point an earlier row at a later descendant: the injected link is the
      // one that points forward in the file.
      const byUuid = new Map<string, number>();
      objs.forEach((o, i) => isChain(o) && byUuid.set(o.uuid as string, i));
      const row = pick(rows.slice(0, Math.max(1, Math.floor(rows.length / 2))), seed);
      if (row === undefined) return undefined;
      const descendant = rows.find((r) => {
        if (r.index <= row.index + 1) return false;
        let p: unknown = r.obj.parentUuid;
        for (let steps = 0; typeof p === 'string' && steps < 10_000; steps++) {
          if (p === row.obj.uuid) return true;
          const i = byUuid.get(p);
          p = i === undefined ? undefined : (objs[i] as Obj).parentUuid;
        }
        return false;
      });
      if (descendant === undefined) return undefined;
      const out = set(row.index, { ...row.obj, parentUuid: descendant.obj.uuid });
      return { kind, text: join(out), ruleId: 'parent-cycle', line: row.index + 1, uuid: row.obj.uuid as string };
    }
    case 'invalid-json-torn': {
      const last = lines[lines.length - 1];
      if (last === undefined || last.length < 20) return undefined;
      const out = [...lines.slice(0, -1), last.slice(0, Math.floor(last.length / 2))];
      return { kind, text: join(out, false), ruleId: 'invalid-json', line: lines.length };
    }
    case 'invalid-json-glued': {
      const row = pick(rows, seed);
      if (row === undefined || row.index + 1 >= lines.length) return undefined;
      const out = [...lines.slice(0, row.index), `${lines[row.index]}${lines[row.index + 1]}`, ...lines.slice(row.index + 2)];
      return { kind, text: join(out), ruleId: 'invalid-json', line: row.index + 1 };
    }
    case 'invalid-json-nul': {
      const row = pick(rows, seed);
      if (row === undefined) return undefined;
      const out = [...lines.slice(0, row.index), '\u0000'.repeat(64), ...lines.slice(row.index)];
      return { kind, text: join(out), ruleId: 'invalid-json', line: row.index + 1 };
    }
    case 'invalid-json-garbage': {
      const row = pick(rows, seed);
      if (row === undefined) return undefined;
      // A record torn mid-write and followed by later appends (Claude Code
      // starts the next append on a new line after a crash).
      const line = lines[row.index] as string;
      const out = [...lines];
      out[row.index] = line.slice(0, Math.floor(line.length / 2));
      return { kind, text: join(out), ruleId: 'invalid-json', line: row.index + 1, uuid: undefined };
    }
    case 'cwd-case-mismatch': {
      const first = objs.findIndex((o) => o !== undefined && typeof o.cwd === 'string' && o.isSidechain !== true);
      if (first === -1) return undefined;
      const cwd = (objs[first] as Obj).cwd as string;
      const flipped = cwd.replace(/[a-z]/, (c) => c.toUpperCase());
      if (flipped === cwd) return undefined;
      const out = lines.map((l, i) => {
        const o = objs[i];
        return o !== undefined && o.cwd === cwd ? JSON.stringify({ ...o, cwd: flipped }) : l;
      });
      return {
        kind,
        text: join(out),
        ruleId: 'cwd-case-mismatch',
        line: first + 1,
        uuid: (objs[first] as Obj).uuid as string | undefined,
        folder: cwd.replace(/[^A-Za-z0-9]/g, '-'),
      };
    }
    case 'string-content': {
      const candidates = rows.filter((r) => {
        const c = content(r.obj);
        return r.obj.type === 'user' && Array.isArray(c) && c.length === 1 && (c[0] as Obj).type === 'text';
      });
      const row = pick(candidates, seed);
      if (row === undefined) return undefined;
      const text = ((content(row.obj) as Obj[])[0] as Obj).text;
      const out = set(row.index, { ...row.obj, message: { ...(row.obj.message as Obj), content: text } });
      return { kind, text: join(out), ruleId: 'string-content', line: row.index + 1, uuid: row.obj.uuid as string };
    }
    case 'dangling-tool-use': {
      // Drop the user row that answers one tool call, re-pointing its children.
      const results = rows.filter((r) => r.obj.type === 'user' && hasBlock(r.obj, 'tool_result'));
      const row = pick(results, seed);
      if (row === undefined) return undefined;
      const c = content(row.obj) as Obj[];
      const answered = new Set(c.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id));
      const useIndex = objs.findIndex(
        (o) => o?.type === 'assistant' && Array.isArray(content(o)) && (content(o) as Obj[]).some((b) => b.type === 'tool_use' && answered.has(b.id)),
      );
      if (useIndex === -1 || useIndex > row.index) return undefined;
      if (objs.some((o, i) => i !== row.index && o?.type === 'user' && JSON.stringify(content(o)).includes(`"tool_use_id":"${[...answered][0] as string}"`))) {
        return undefined;
      }
      const out: string[] = [];
      lines.forEach((l, i) => {
        if (i === row.index) return;
        const o = objs[i];
        out.push(o !== undefined && o.parentUuid === row.obj.uuid ? JSON.stringify({ ...o, parentUuid: row.obj.parentUuid }) : l);
      });
      const line = useIndex < row.index ? useIndex + 1 : useIndex;
      return { kind, text: join(out), ruleId: 'dangling-tool-use', line, uuid: (objs[useIndex] as Obj).uuid as string };
    }
    case 'orphan-tool-result': {
      const results = rows.filter((r) => r.obj.type === 'user' && hasBlock(r.obj, 'tool_result'));
      const row = pick(results, seed);
      if (row === undefined) return undefined;
      const c = (content(row.obj) as Obj[]).map((b) => (b.type === 'tool_result' ? { ...b, tool_use_id: `toolu_${fakeUuid(seed).slice(0, 12)}` } : b));
      const out = set(row.index, { ...row.obj, message: { ...(row.obj.message as Obj), content: c } });
      return { kind, text: join(out), ruleId: 'orphan-tool-result', line: row.index + 1, uuid: row.obj.uuid as string };
    }
  }
}
