/**
 * zod schemas for the transcript record types (format.md §4), used to check
 * every record a fix writes before anything is written. Deliberately loose:
 * every object keeps unknown keys, and only the fields Claude Code's loader
 * relies on are constrained. Kept apart from records.ts so that `check`,
 * which never writes, does not load zod at all.
 */
import { z } from 'zod';
import type { JsonObject } from './types.js';

const uuidString = z.string();
const timestamp = z.string();

/** Fields every chain row (user, assistant, system, attachment) carries. */
const chainEnvelope = {
  parentUuid: uuidString.nullable(),
  logicalParentUuid: uuidString.nullable().optional(),
  isSidechain: z.boolean().optional(),
  uuid: uuidString,
  timestamp,
  sessionId: z.string().optional(),
  cwd: z.string().optional(),
  version: z.string().optional(),
  agentId: z.string().optional(),
  isMeta: z.boolean().optional(),
};

const contentBlock = z.looseObject({ type: z.string() });

export const userRecordSchema = z.looseObject({
  ...chainEnvelope,
  type: z.literal('user'),
  message: z.looseObject({
    role: z.literal('user').optional(),
    content: z.union([z.string(), z.array(contentBlock)]),
  }),
  isCompactSummary: z.boolean().optional(),
  sourceToolAssistantUUID: z.string().optional(),
});

export const assistantRecordSchema = z.looseObject({
  ...chainEnvelope,
  type: z.literal('assistant'),
  message: z.looseObject({
    id: z.string().optional(),
    role: z.literal('assistant').optional(),
    content: z.union([z.string(), z.array(contentBlock)]),
  }),
  requestId: z.string().optional(),
});

export const systemRecordSchema = z.looseObject({
  ...chainEnvelope,
  type: z.literal('system'),
  subtype: z.string().optional(),
  content: z.unknown().optional(),
  compactMetadata: z.looseObject({}).optional(),
});

export const attachmentRecordSchema = z.looseObject({
  ...chainEnvelope,
  type: z.literal('attachment'),
  attachment: z.looseObject({ type: z.string() }),
});

export const progressRecordSchema = z.looseObject({
  type: z.literal('progress'),
  uuid: uuidString,
  parentUuid: uuidString.nullable(),
  timestamp: timestamp.optional(),
});

export const summaryRecordSchema = z.looseObject({
  type: z.literal('summary'),
  summary: z.string(),
  leafUuid: z.string().optional(),
});

export const lastPromptRecordSchema = z.looseObject({
  type: z.literal('last-prompt'),
  lastPrompt: z.string().optional(),
  leafUuid: z.string().nullable().optional(),
  explicit: z.boolean().optional(),
  sessionId: z.string().optional(),
});

export const fileHistorySnapshotSchema = z.looseObject({
  type: z.literal('file-history-snapshot'),
  messageId: z.string(),
  snapshot: z.looseObject({}),
});

const sessionMetadata = (type: string, field: string) =>
  z.looseObject({ type: z.literal(type), [field]: z.unknown(), sessionId: z.string().optional() });

/**
 * Schemas by record type. Types listed in {@link INERT_RECORD_TYPES} are
 * known but carry nothing the linter checks.
 */
export const RECORD_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  user: userRecordSchema,
  assistant: assistantRecordSchema,
  system: systemRecordSchema,
  attachment: attachmentRecordSchema,
  progress: progressRecordSchema,
  summary: summaryRecordSchema,
  'last-prompt': lastPromptRecordSchema,
  'file-history-snapshot': fileHistorySnapshotSchema,
  'custom-title': sessionMetadata('custom-title', 'customTitle'),
  'ai-title': sessionMetadata('ai-title', 'aiTitle'),
  tag: sessionMetadata('tag', 'tag'),
  relocated: sessionMetadata('relocated', 'relocatedCwd'),
  'queue-operation': z.looseObject({ type: z.literal('queue-operation'), operation: z.string() }),
  'continued-in': sessionMetadata('continued-in', 'continuedInSessionId'),
};

/**
 * Why a record does not match its type's schema, in one line; undefined when
 * it does or when its type has no schema.
 */
export function schemaProblem(record: JsonObject): string | undefined {
  const schema = typeof record.type === 'string' ? RECORD_SCHEMAS[record.type] : undefined;
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(record);
  if (parsed.success) return undefined;
  return parsed.error.issues.map((i) => `${i.path.join('.') || '(record)'}: ${i.message}`).join('; ');
}
