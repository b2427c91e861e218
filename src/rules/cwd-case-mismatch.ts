/**
 * cwd-case-mismatch
 *
 * ## What it detects
 * The session's launch `cwd` (the first one recorded) encodes to a project
 * key that differs from the name of the folder the file lives in only in
 * letter case, drive letters included (`c--Users-x` vs `C--Users-x`).
 *
 * ## Why it matters
 * Claude Code compares project keys case-sensitively. A session written
 * under one casing is invisible to `/resume` and `--continue` started from
 * the other, so one project's history splits across two folders (the VS
 * Code extension's `c:\` vs the CLI's `C:\`, https://github.com/anthropics/claude-code/issues/90588;
 * case-folding file systems on WSL and macOS).
 *
 * ## Fix
 * Rewrite every `cwd` value of the file that has the mismatch to the casing
 * the project folder encodes. Safe: the folder name fixes exactly one
 * casing for every letter, and no other field changes. Subagent files are
 * not checked; they legitimately run in worktrees.
 *
 * ## Known false positives
 * A folder renamed by hand to a different case on purpose.
 */
import { projectKey, recaseToFolder } from '../core/project-key.js';
import type { RecordSummary } from '../core/records.js';
import { setFieldsEdits } from '../core/fix-builders.js';
import { isAgentFile } from '../core/analysis.js';
import type { RecordEdit } from '../core/types.js';
import { defineRule } from './rule.js';

export default defineRule({
  meta: {
    id: 'cwd-case-mismatch',
    description: "The session's cwd must encode to its project folder's exact casing",
    severity: 'warning',
    fixable: 'safe',
    messages: {
      mismatch: 'cwd "{cwd}" encodes to {key}, but the folder is {folder}; they differ only in letter case',
    },
  },
  check({ index, report }) {
    if (isAgentFile(index)) return;
    const folder = index.file.projectFolderName;
    const launch = index.records.find((r) => r.cwd !== undefined && !r.isSidechain);
    if (launch === undefined || launch.cwd === undefined) return;
    const key = projectKey(launch.cwd);
    if (key === folder || key.toLowerCase() !== folder.toLowerCase()) return;
    const mismatched = new Map<string, string>();
    const affected: RecordSummary[] = [];
    for (const r of index.records) {
      if (r.cwd === undefined) continue;
      let fixed = mismatched.get(r.cwd);
      if (fixed === undefined && !mismatched.has(r.cwd)) {
        const recased = recaseToFolder(r.cwd, folder);
        if (recased !== undefined) mismatched.set(r.cwd, recased);
        fixed = recased;
      }
      if (fixed !== undefined) affected.push(r);
    }
    const target = mismatched.get(launch.cwd);
    report({
      messageId: 'mismatch',
      data: { cwd: launch.cwd, key, folder },
      record: launch,
      fix:
        target === undefined
          ? undefined
          : {
              title: `Rewrite cwd to "${target}" on ${affected.length} record(s)`,
              applicability: 'safe',
              edits: () => {
                const edits: RecordEdit[] = [];
                for (const r of affected) edits.push(...setFieldsEdits(index, r, { cwd: mismatched.get(r.cwd as string) }));
                return edits;
              },
            },
    });
  },
});
