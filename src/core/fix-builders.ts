/**
 * Builders for record-level fixes. They turn an intent ("relink this record
 * to that one", "set these fields") into {@link RecordEdit}s against the
 * original line text, so the planner can check that the line is unchanged
 * before applying anything. They never write; edits are computed only when
 * a fix is actually planned.
 */
import { isMainChainRow } from './analysis.js';
import type { RecordSummary } from './records.js';
import { serializeRecord } from './records.js';
import type { SessionIndex } from './session-index.js';
import type { RelinkChoice } from './repair-targets.js';
import type { Applicability, Fix, FixAlternative, JsonObject, RecordEdit } from './types.js';

function shortUuid(uuid: string | undefined): string {
  return uuid === undefined ? '(none)' : uuid.slice(0, 8);
}

/**
 * Edits that set (or, with `undefined`, remove) top-level fields of one
 * record, keeping every other key in its original order. Records recovered
 * from a damaged line get no field edits: the line is repaired first, and
 * the next planning pass sees a clean record.
 */
export function setFieldsEdits(
  index: SessionIndex,
  record: RecordSummary,
  changes: Readonly<Record<string, unknown>>,
): RecordEdit[] {
  if (record.recovery !== undefined) return [];
  const before = index.lineText(record.line);
  const obj = JSON.parse(before) as JsonObject;
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete obj[key];
    else obj[key] = value;
  }
  return [{ kind: 'replace', line: record.line, before, after: [serializeRecord(obj)] }];
}

function relinkTitle(target: RecordSummary): string {
  return `Relink parentUuid to ${target.type} ${shortUuid(target.uuid)} on line ${target.line}`;
}

/**
 * A fix that points `record.parentUuid` at the chosen row. The choice's
 * alternatives (other rows the record may continue) become the fix's
 * alternatives, and make it unsafe: which one is right is a guess. A
 * relink under a row that already has another child on the main chain
 * creates a fork, and is unsafe too.
 */
export function relinkFix(
  index: SessionIndex,
  record: RecordSummary,
  choice: RelinkChoice,
  applicability?: Applicability,
): Fix {
  const { target, alternatives } = choice;
  const guessed = alternatives.length > 0 || hasOtherMainChild(index, target, record);
  const level: Applicability = guessed ? 'unsafe' : (applicability ?? 'safe');
  const option = (row: RecordSummary): FixAlternative => ({
    title: relinkTitle(row),
    target: { line: row.line, type: row.type, timestamp: row.timestamp, excerpt: row.excerpt.slice(0, 60) },
    edits: () => setFieldsEdits(index, record, { parentUuid: row.uuid }),
  });
  return {
    title: relinkTitle(target),
    applicability: level,
    edits: () => setFieldsEdits(index, record, { parentUuid: target.uuid }),
    dependsOn: [target.line],
    ...(alternatives.length > 0 ? { alternatives: [option(target), ...alternatives.map(option)] } : {}),
  };
}

/**
 * {@link relinkFix} for a repair choice, or nothing when there is no choice
 * or it names the parent the record already has (a uuid two records share:
 * the rename that tells them apart comes first, then the relink).
 */
export function relinkFixOf(
  index: SessionIndex,
  record: RecordSummary,
  choice: RelinkChoice | undefined,
  applicability?: Applicability,
): Fix | undefined {
  if (choice === undefined || choice.target.uuid === record.parentUuid) return undefined;
  return relinkFix(index, record, choice, applicability);
}

/** Whether relinking under `target` would create a fork on the main chain. */
function hasOtherMainChild(index: SessionIndex, target: RecordSummary, except: RecordSummary): boolean {
  if (target.uuid === undefined) return true;
  return index.childrenOf(target.uuid).some((c) => c !== except && isMainChainRow(index, c));
}

/** A fix that deletes whole lines. */
export function deleteLinesFix(index: SessionIndex, lines: readonly number[], title: string, applicability: Applicability): Fix {
  return {
    title,
    applicability,
    edits: () => lines.map((line) => ({ kind: 'delete' as const, line, before: index.lineText(line) })),
  };
}

/** A fix that replaces one line with the given records, one per line. */
export function replaceLineFix(
  index: SessionIndex,
  line: number,
  after: () => readonly JsonObject[],
  title: string,
  applicability: Applicability,
): Fix {
  return {
    title,
    applicability,
    edits: () => [{ kind: 'replace', line, before: index.lineText(line), after: after().map(serializeRecord) }],
  };
}

/**
 * Edits that re-chain rows and move lines: every record in `parents` gets
 * that `parentUuid`, and the lines of `moved` (in the order given) go right
 * before `anchor`'s line. Nothing when a row involved shares its line with
 * another record or was recovered from a damaged line, or when `anchor` is
 * the first line: such a file is repaired first, and planned again.
 */
export function rechainEdits(
  index: SessionIndex,
  parents: ReadonlyMap<RecordSummary, string | null>,
  moved: readonly RecordSummary[],
  anchor: RecordSummary,
): RecordEdit[] {
  const rows = new Set<RecordSummary>([...parents.keys(), ...moved, anchor]);
  for (const r of rows) {
    if (r.recovery !== undefined) return [];
    if (index.records[r.ordinal - 1]?.line === r.line || index.records[r.ordinal + 1]?.line === r.line) return [];
  }
  if (anchor.line <= 1 || moved.some((r) => r.line === anchor.line)) return [];
  const textOf = (r: RecordSummary): string => {
    const before = index.lineText(r.line);
    if (!parents.has(r)) return before;
    const obj = JSON.parse(before) as JsonObject;
    obj.parentUuid = parents.get(r) ?? null;
    return serializeRecord(obj);
  };
  const edits: RecordEdit[] = [];
  for (const r of moved) edits.push({ kind: 'delete', line: r.line, before: index.lineText(r.line) });
  for (const r of parents.keys()) {
    if (moved.includes(r)) continue;
    const after = textOf(r);
    const before = index.lineText(r.line);
    if (after !== before) edits.push({ kind: 'replace', line: r.line, before, after: [after] });
  }
  edits.push({ kind: 'insertAfter', line: anchor.line - 1, after: moved.map(textOf) });
  return edits;
}

/**
 * Edits that rewrite the `message.content` of records: `rewrite` returns
 * the new blocks, or `null` to delete the record (its children then hang
 * from its nearest ancestor that stays).
 */
export function rewriteContentEdits(
  index: SessionIndex,
  records: readonly RecordSummary[],
  rewrite: (content: readonly JsonObject[]) => JsonObject[] | null,
): RecordEdit[] {
  const edits: RecordEdit[] = [];
  const deleted = new Map<string, string | null>();
  for (const r of records) {
    if (r.recovery !== undefined) return [];
    const before = index.lineText(r.line);
    const obj = JSON.parse(before) as JsonObject;
    const message = obj.message as JsonObject | undefined;
    if (message === undefined || !Array.isArray(message.content)) continue;
    const content = rewrite(message.content as JsonObject[]);
    if (content === null) {
      if (r.uuid !== undefined) deleted.set(r.uuid, r.parentUuid ?? null);
      edits.push({ kind: 'delete', line: r.line, before });
      continue;
    }
    obj.message = { ...message, content };
    const after = serializeRecord(obj);
    if (after !== before) edits.push({ kind: 'replace', line: r.line, before, after: [after] });
  }
  const survivor = (p: string | null): string | null => {
    let current = p;
    for (let guard = 0; current !== null && deleted.has(current) && guard < 10_000; guard++) current = deleted.get(current) ?? null;
    return current;
  };
  for (const uuid of deleted.keys()) {
    for (const child of index.childrenOf(uuid)) {
      if (child.uuid !== undefined && deleted.has(child.uuid)) continue;
      const changed = edits.find((e) => e.kind === 'replace' && e.line === child.line);
      const base = changed?.kind === 'replace' ? (changed.after[0] as string) : index.lineText(child.line);
      const obj = JSON.parse(base) as JsonObject;
      obj.parentUuid = survivor(uuid);
      const after = serializeRecord(obj);
      if (changed?.kind === 'replace') edits[edits.indexOf(changed)] = { ...changed, after: [after] };
      else edits.push({ kind: 'replace', line: child.line, before: index.lineText(child.line), after: [after] });
    }
  }
  return edits;
}
