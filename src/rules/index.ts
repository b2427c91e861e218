/**
 * The rule registry: a static, alphabetised list. No file-system discovery
 * at run time; a meta test keeps this list, the rule files, their tests and
 * their fixtures in step.
 */
import blankPrompt from './blank-prompt.js';
import cwdCaseMismatch from './cwd-case-mismatch.js';
import danglingToolUse from './dangling-tool-use.js';
import duplicateUuid from './duplicate-uuid.js';
import invalidJson from './invalid-json.js';
import invalidTimestamp from './invalid-timestamp.js';
import messageIdReuse from './message-id-reuse.js';
import misplacedParent from './misplaced-parent.js';
import notATranscript from './not-a-transcript.js';
import orphanRoot from './orphan-root.js';
import orphanToolResult from './orphan-tool-result.js';
import oversizedImage from './oversized-image.js';
import parentCycle from './parent-cycle.js';
import phantomParent from './phantom-parent.js';
import projectKeyMismatch from './project-key-mismatch.js';
import serverToolSplit from './server-tool-split.js';
import sidechainInHead from './sidechain-in-head.js';
import stringContent from './string-content.js';
import thinkingOrder from './thinking-order.js';
import thinkingSignature from './thinking-signature.js';
import unknownRecordType from './unknown-record-type.js';
import type { Rule } from './rule.js';

export const RULES: readonly Rule[] = [
  blankPrompt,
  cwdCaseMismatch,
  danglingToolUse,
  duplicateUuid,
  invalidJson,
  invalidTimestamp,
  messageIdReuse,
  misplacedParent,
  notATranscript,
  orphanRoot,
  orphanToolResult,
  oversizedImage,
  parentCycle,
  phantomParent,
  projectKeyMismatch,
  serverToolSplit,
  sidechainInHead,
  stringContent,
  thinkingOrder,
  thinkingSignature,
  unknownRecordType,
];

export const RULES_BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((r) => [r.meta.id, r]));
