/**
 * `--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF
 * consumers. Paths are relative to `%SRCROOT%` (the cwd) so alerts keep their
 * identity across machines, and each result carries its own fingerprint,
 * built from the record's identity, never from its line: a repair that shifts
 * lines must not close and reopen every alert below it. No transcript content
 * beyond the message text is embedded.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { fingerprintsOf } from '../core/fingerprint.js';
import type { FileResult, Severity } from '../core/types.js';
import type { RuleMeta } from '../rules/rule.js';
import type { FormatContext, Formatter, RuleHelp } from './types.js';
import { terminalSafeJsonChunks } from '../escape.js';

// The subset of SARIF 2.1.0 this formatter writes.

export type SarifLevel = 'error' | 'warning' | 'note';

export interface SarifRule {
  readonly id: string;
  readonly name: string;
  readonly shortDescription: { readonly text: string };
  readonly helpUri?: string;
  readonly help?: { readonly text: string; readonly markdown: string };
  readonly defaultConfiguration?: { readonly level: SarifLevel };
}

export interface SarifArtifactLocation {
  readonly uri: string;
  readonly uriBaseId?: string;
}

export interface SarifResult {
  readonly ruleId: string;
  readonly ruleIndex: number;
  readonly level: SarifLevel;
  readonly message: { readonly text: string };
  readonly locations: ReadonlyArray<{
    readonly physicalLocation: {
      readonly artifactLocation: SarifArtifactLocation;
      readonly region: { readonly startLine: number };
    };
    readonly logicalLocations?: ReadonlyArray<{
      readonly name: string;
      readonly kind: 'object';
      readonly fullyQualifiedName: string;
    }>;
  }>;
  readonly partialFingerprints: { readonly 'cclint/v1': string };
}

export interface SarifLog {
  readonly $schema: 'https://json.schemastore.org/sarif-2.1.0.json';
  readonly version: '2.1.0';
  readonly runs: ReadonlyArray<{
    readonly tool: {
      readonly driver: {
        readonly name: 'cclint';
        readonly version: string;
        readonly informationUri?: string;
        readonly rules: readonly SarifRule[];
      };
    };
    readonly originalUriBaseIds: { readonly '%SRCROOT%': { readonly uri: string } };
    readonly results: readonly SarifResult[];
    readonly properties?: { readonly files: ReadonlyArray<Record<string, unknown>> };
  }>;
}

export const SARIF_SCHEMA = 'https://json.schemastore.org/sarif-2.1.0.json';

const LEVEL: Readonly<Record<Severity, SarifLevel>> = { error: 'error', warning: 'warning', info: 'note' };

/** `phantom-parent` → `PhantomParent` (SARIF2012 wants a readable name besides the id). */
export function pascalCase(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/u)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

function ruleOf(meta: RuleMeta, help: RuleHelp | undefined): SarifRule {
  return {
    id: meta.id,
    name: pascalCase(meta.id),
    shortDescription: { text: meta.description },
    ...(help === undefined ? {} : { helpUri: help.uri, help: { text: help.markdown, markdown: help.markdown } }),
    defaultConfiguration: { level: LEVEL[meta.severity] },
  };
}

/**
 * The artifact location of a file: relative to the cwd (`%SRCROOT%`) with
 * forward slashes and percent-encoded segments; a file outside the cwd gets
 * an absolute `file://` URI, since `../` cannot be anchored under a source root.
 */
export function artifactLocationOf(filePath: string, cwd: string): SarifArtifactLocation {
  const absolute = path.resolve(cwd, filePath);
  const relative = path.relative(cwd, absolute);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    return { uri: pathToFileURL(absolute).href };
  }
  const uri = relative.split(/[\\/]/u).map(encodeURIComponent).join('/');
  return { uri, uriBaseId: '%SRCROOT%' };
}

function logicalLocationOf(sessionId: string | undefined, uuid: string | undefined) {
  const name = uuid ?? sessionId;
  if (name === undefined) return undefined;
  const fullyQualifiedName = sessionId !== undefined && uuid !== undefined ? `${sessionId}/${uuid}` : name;
  return { name, kind: 'object' as const, fullyQualifiedName };
}

/** The SARIF log as data; {@link sarif} is this, pretty-printed. */
export function sarifLog(results: readonly FileResult[], context: FormatContext): SarifLog {
  const rules: SarifRule[] = [...context.rulesMeta.values()].map((meta) => ruleOf(meta, context.ruleHelp?.get(meta.id)));
  const ruleIndex = new Map(rules.map((r, i) => [r.id, i]));
  const indexOf = (ruleId: string): number => {
    let i = ruleIndex.get(ruleId);
    if (i === undefined) {
      // A finding from a rule the caller gave no meta for: still a valid ruleIndex.
      i = rules.length;
      rules.push({ id: ruleId, name: pascalCase(ruleId), shortDescription: { text: ruleId } });
      ruleIndex.set(ruleId, i);
    }
    return i;
  };

  const sarifResults: SarifResult[] = [];
  const files: Record<string, unknown>[] = [];
  for (const file of results) {
    const artifactLocation = artifactLocationOf(file.filePath, context.cwd);
    const session = file.sessionId ?? `file:${artifactLocation.uri}`;
    if (file.resume !== undefined || file.score !== undefined) {
      files.push({
        uri: artifactLocation.uri,
        ...(file.sessionId === undefined ? {} : { sessionId: file.sessionId }),
        ...(file.resume === undefined ? {} : { resume: { ...file.resume } }),
        ...(file.score === undefined ? {} : { score: file.score }),
      });
    }
    const fingerprints = fingerprintsOf(file.findings, session);
    for (const [i, f] of file.findings.entries()) {
      const logical = logicalLocationOf(file.sessionId, f.uuid);
      sarifResults.push({
        ruleId: f.ruleId,
        ruleIndex: indexOf(f.ruleId),
        level: LEVEL[f.severity],
        message: { text: f.message },
        locations: [
          {
            physicalLocation: { artifactLocation, region: { startLine: Math.max(1, f.line) } },
            ...(logical === undefined ? {} : { logicalLocations: [logical] }),
          },
        ],
        partialFingerprints: { 'cclint/v1': fingerprints[i] as string },
      });
    }
  }

  const cwdUri = pathToFileURL(context.cwd).href;
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'cclint',
            version: context.version,
            ...(context.informationUri === undefined ? {} : { informationUri: context.informationUri }),
            rules,
          },
        },
        originalUriBaseIds: { '%SRCROOT%': { uri: cwdUri.endsWith('/') ? cwdUri : `${cwdUri}/` } },
        // Always present: an empty array positively says the run was clean.
        results: sarifResults,
        ...(files.length === 0 ? {} : { properties: { files } }),
      },
    ],
  };
}

/**
 * SARIF 2.1.0, pretty-printed with two spaces, ending with a newline; exact
 * values, written so that a terminal showing the log is safe (see json.ts).
 */
export const sarif: Formatter = (results: readonly FileResult[], context: FormatContext): string => [...sarifChunks(results, context)].join('');

/** {@link sarif} in pieces (what `check` writes). */
export function* sarifChunks(results: readonly FileResult[], context: FormatContext): Generator<string> {
  yield* terminalSafeJsonChunks(sarifLog(results, context));
  yield '\n';
}
