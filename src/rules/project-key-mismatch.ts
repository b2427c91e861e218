/**
 * project-key-mismatch
 *
 * ## What it detects
 * A main session file whose project folder is not the folder Claude Code
 * would use for the session's launch `cwd` (the first one recorded), for a
 * reason other than letter case: the folder was renamed, moved, or created
 * by a tool with a different encoding (e.g. one that only replaced `/`).
 * Only folders that look like project keys are checked.
 *
 * ## Why it matters
 * Claude Code lists the sessions of `<projects>/<key(cwd)>/` only. A session
 * in any other folder is invisible to the picker and `--continue` from that
 * directory; `--resume <id>` finds it only through a scan of every project.
 *
 * ## Fix
 * None automatically: moving files between project folders is the user's
 * call. The message names the folder Claude Code looks in.
 *
 * ## Known false positives
 * `CLAUDE_CODE_PROJECT_DIR_NAME` overrides the folder name; a `cwd` later
 * rewritten by a tool; folders anonymised before sharing.
 */
import { isAgentFile } from '../core/analysis.js';
import { MAX_PROJECT_KEY_PREFIX, projectKey } from '../core/project-key.js';
import { defineRule } from './rule.js';

/**
 * A folder name that starts the way an encoded absolute path does. The rest
 * is not constrained: a folder made by another encoder (one that kept `_` or
 * `.`) is exactly what this rule is for.
 */
const KEY_LIKE = /^(-|[A-Za-z]--)/;

export default defineRule({
  meta: {
    id: 'project-key-mismatch',
    description: "A session lives in the project folder its cwd encodes to",
    severity: 'warning',
    messages: {
      elsewhere: 'cwd "{cwd}" encodes to {key}, but the session is in {folder}; Claude Code started there will not list it',
    },
  },
  check({ index, report }) {
    if (index.file.role !== 'main' || isAgentFile(index)) return;
    const folder = index.file.projectFolderName;
    if (!KEY_LIKE.test(folder)) return;
    const launch = index.records.find((r) => r.cwd !== undefined && !r.isSidechain);
    if (launch === undefined || launch.cwd === undefined) return;
    const key = projectKey(launch.cwd);
    if (key.toLowerCase() === folder.toLowerCase()) return; // same, or cwd-case-mismatch
    // Folders made by 1.0.x/2.0.x for long paths keep the whole encoding; 2.1.330 still finds them.
    if (key.length > MAX_PROJECT_KEY_PREFIX && folder.startsWith(key.slice(0, MAX_PROJECT_KEY_PREFIX))) return;
    report({ messageId: 'elsewhere', data: { cwd: launch.cwd, key, folder }, record: launch });
  },
});
