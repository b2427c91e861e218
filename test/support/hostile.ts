/**
 * A project folder whose transcripts carry terminal escape sequences in
 * every field a command prints: folder and file names, `cwd`, `sessionId`,
 * uuids and parent uuids, record types and subtypes, timestamps, tool names
 * and tool-use ids, attachment types, prompt text and titles. Built so that
 * each value also ends up in a finding's message (phantom-parent,
 * invalid-timestamp, unknown-record-type, duplicate-uuid, orphan-root,
 * dangling-tool-use, project-key-mismatch), a tree row, a `show` line or a
 * `sessions` cell.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Clears the screen, homes the cursor, and sets the window title. */
export const CLEAR = '\u001b[2J\u001b[H';
export const TITLE = '\u001b]0;pwned\u0007';
/** Right-to-left override (Trojan Source) and a C1 CSI. */
export const RLO = '\u202e';
export const CSI = '\u009b';

/** One fragment with every kind of hazard; each field below carries it. */
export const HOSTILE = `${CLEAR}${TITLE}x${RLO}y${CSI}31m\u2066z\u0000\u007f\ud800`;

/** Any character that would act on a terminal; a line feed is allowed, as the output's own line ends. */
export const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

export const MAIN_SESSION = '0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b';
/** A folder name Linux allows, holding an escape sequence. */
export const PROJECT_FOLDER = `-home-u-p\u001b[31mred`;
/** A transcript outside Claude Code's naming, with a line break and an escape sequence in its name. */
export const OTHER_FILE = `notes\n\u001b[1mbold.jsonl`;

const U = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function records(): object[] {
  const sessionId = MAIN_SESSION;
  const cwd = `/home/u/${HOSTILE}`;
  const envelope = { isSidechain: false, userType: 'external', cwd, sessionId, version: '2.1.29' };
  return [
    { type: 'custom-title', customTitle: `Title ${HOSTILE}`, sessionId },
    {
      parentUuid: null,
      ...envelope,
      type: 'user',
      message: { role: 'user', content: `prompt ${HOSTILE} end` },
      uuid: U(1),
      timestamp: '2026-01-05T03:00:00.000Z',
    },
    {
      parentUuid: U(1),
      ...envelope,
      type: 'assistant',
      message: {
        id: 'msg_1',
        role: 'assistant',
        content: [
          { type: 'text', text: `answer ${HOSTILE}` },
          { type: 'tool_use', id: `toolu_${HOSTILE}`, name: `Bash${HOSTILE}`, input: {} },
          { type: 'tool_use', id: 'toolu_answered', name: 'Read', input: {} },
        ],
      },
      uuid: U(2),
      timestamp: '2026-01-05T03:00:01.000Z',
    },
    // One call's result, so that resume sends the row (and `show` lists it);
    // the other call stays unanswered (a dangling-tool-use finding).
    {
      parentUuid: U(2),
      ...envelope,
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_answered', content: 'ok' }] },
      uuid: U(10),
      timestamp: '2026-01-05T03:00:01.500Z',
    },
    {
      parentUuid: U(10),
      ...envelope,
      type: 'system',
      subtype: `sub${HOSTILE}`,
      content: `system ${HOSTILE}`,
      uuid: U(3),
      timestamp: '2026-01-05T03:00:02.000Z',
    },
    {
      parentUuid: U(3),
      ...envelope,
      type: 'attachment',
      attachment: { type: `att${HOSTILE}` },
      uuid: U(4),
      timestamp: `2026${HOSTILE}`,
    },
    // A uuid holding escapes, once and again with another body.
    {
      parentUuid: U(4),
      ...envelope,
      type: 'user',
      message: { role: 'user', content: 'plain' },
      uuid: `uuid${HOSTILE}`,
      timestamp: '2026-01-05T03:00:04.000Z',
    },
    {
      parentUuid: U(4),
      ...envelope,
      type: 'user',
      message: { role: 'user', content: 'other body' },
      uuid: `uuid${HOSTILE}`,
      timestamp: '2026-01-05T03:00:05.000Z',
    },
    // A parent that exists nowhere, named by escapes; a minute later, so
    // that resume cannot bridge the gap and stops here.
    {
      parentUuid: `parent${HOSTILE}`,
      ...envelope,
      type: 'user',
      message: { role: 'user', content: `after a break ${HOSTILE}` },
      uuid: U(6),
      timestamp: '2026-01-05T03:01:06.000Z',
    },
    // A null parent in mid-file on a system row with a hostile subtype.
    {
      parentUuid: null,
      ...envelope,
      type: 'system',
      subtype: `mid${HOSTILE}`,
      content: 'x',
      uuid: U(7),
      timestamp: '2026-01-05T03:01:07.000Z',
    },
    // A compact boundary under another name: `tree` prints its subtype.
    {
      parentUuid: null,
      logicalParentUuid: U(7),
      ...envelope,
      type: 'system',
      subtype: `boundary${HOSTILE}`,
      content: 'Conversation compacted',
      uuid: U(8),
      timestamp: '2026-01-05T03:01:08.000Z',
    },
    { type: `kind${HOSTILE}`, sessionId, uuid: U(9) },
  ];
}

/** Writes the folder under `root`; returns the project folder's path. */
export function writeHostileProject(root: string): string {
  const dir = path.join(root, PROJECT_FOLDER);
  fs.mkdirSync(dir, { recursive: true });
  const text = `${records()
    .map((r) => JSON.stringify(r))
    .join('\n')}\n`;
  fs.writeFileSync(path.join(dir, `${MAIN_SESSION}.jsonl`), text);
  const other = records().map((r) => ({ ...r, sessionId: `sid${HOSTILE}` }));
  fs.writeFileSync(path.join(dir, OTHER_FILE), `${other.map((r) => JSON.stringify(r)).join('\n')}\n`);
  return dir;
}
