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
    ...(alternatives.length > 0 ? { alternatives: [option(target), ...alternatives.map(option)] } : {}),
  };
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
