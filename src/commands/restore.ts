/**
 * `cclint restore <audit-id | file>`: put a file back exactly as it was
 * before a fix, from the backup the audit log names.
 */
import { Command } from 'commander';
import { classifyPath } from '../core/discovery.js';
import type { Io } from '../io.js';
import type { FsPort } from '../repair/fs-port.js';
import { nodeFs } from '../repair/fs-port.js';
import { restore } from '../repair/restore.js';

interface RestoreCommandOptions {
  readonly auditLog?: string | undefined;
  readonly backupDir?: string | undefined;
  readonly force?: boolean | undefined;
}

export function restoreCommand(io: Io, setExit: (code: number) => void, port: FsPort = nodeFs()): Command {
  return new Command('restore')
    .description('put a file back exactly as it was before a fix, from its backup (refuses if the file changed since)')
    .argument('<audit-id|file>', 'an id printed by `cclint fix` (or in audit.jsonl), or a fixed file: undoes its newest fix')
    .option('--audit-log <file>', 'the audit log `cclint fix` wrote to (default: $CCLINT_HOME/audit.jsonl)')
    .option('--backup-dir <dir>', 'where to back up the current content first (default: $CCLINT_HOME/backups)')
    .option('--force', 'write even when the session looks active in Claude Code')
    .addHelpText(
      'after',
      `
Examples:
  cclint restore m5x2k9q1-3f0a                 undo the fix with this audit id
  cclint restore ~/.claude/projects/-home-me-app/<session>.jsonl
                                               undo the newest fix of this file

The current content is backed up and the restore is audited, so restoring the
restore's own id redoes the fix.

Exit codes: 0 restored (or nothing to do), 2 not restored (unknown id, file changed since the fix, bad backup, live session).`,
    )
    .action((target: string, options: RestoreCommandOptions) => {
      const { undone, entry } = restore(target, {
        fs: port,
        env: io.env,
        cwd: io.cwd,
        auditLog: options.auditLog,
        backupDir: options.backupDir,
        force: options.force === true,
        now: io.now ?? Date.now,
      });
      const shown = classifyPath(undone.file, io.cwd).displayPath;
      const what = undone.kind === 'restore' ? `restore ${undone.id}` : `fix ${undone.id}`;
      io.stdout.write(
        entry === undefined
          ? `${shown} already holds its content from before ${what}; nothing to do\n`
          : `restored ${shown} to its content before ${what} (${undone.time}); undo with: cclint restore ${entry.id}\n`,
      );
      setExit(0);
    });
}
