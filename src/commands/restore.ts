/**
 * `cclint restore <audit-id | file>`: put a file back exactly as it was
 * before a fix, from the backup the audit log names.
 */
import { Command, Option } from 'commander';
import { classifyPath } from '../core/discovery.js';
import type { Io } from '../io.js';
import type { FsPort } from '../repair/fs-port.js';
import { nodeFs } from '../repair/fs-port.js';
import { restore } from '../repair/restore.js';
import { listAudit, type AuditListRow } from '../repair/audit-list.js';
import { entryLabel } from '../repair/audit.js';
import { statePaths } from '../repair/write.js';
import { UsageError } from '../core/errors.js';
import { undoCommand } from './shared.js';
import { escapeForTerminal, terminalSafeJson } from '../escape.js';
import { handleInterrupts } from '../interrupt.js';

interface RestoreCommandOptions {
  readonly auditLog?: string | undefined;
  readonly backupDir?: string | undefined;
  readonly force?: boolean | undefined;
  readonly list?: boolean | undefined;
  readonly limit: string;
  readonly format: 'stylish' | 'json';
}

const STATE_TEXT: Record<AuditListRow['state'], string> = {
  'as-written': 'as written',
  grown: 'as written, grown since',
  before: 'back as before',
  changed: 'changed since',
  replaced: 'not a regular file now',
  missing: 'file missing',
};

/** One row a line: id, time, what, state, file; aligned like `git log --oneline`. */
function listText(rows: readonly AuditListRow[], cwd: string): string {
  if (rows.length === 0) return 'no fixes recorded yet\n';
  const cells = rows.map((r) => [
    r.id,
    r.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
    `${STATE_TEXT[r.state]}${r.undone ? ', undone' : ''}${r.backupMissing === true ? ', backup gone' : ''}`,
    r.what,
    classifyPath(r.file, cwd).displayPath,
  ].map((c) => escapeForTerminal(c)));
  // Reduced, not Math.max(...column): a long audit log has more rows than a call can take arguments.
  const widths = [0, 1, 2, 3].map((i) => cells.reduce((width, c) => Math.max(width, (c[i] as string).length), 0));
  return `${cells.map((c) => c.map((cell, i) => (i < 4 ? cell.padEnd(widths[i] as number) : cell)).join('  ')).join('\n')}\n`;
}

export function restoreCommand(io: Io, setExit: (code: number) => void, port: FsPort = nodeFs()): Command {
  return new Command('restore')
    .description('put a file back exactly as it was before a fix, from its backup (refuses if the file changed since)')
    .argument('[audit-id|file]', 'an id printed by `cclint fix` (or in audit.jsonl), or a fixed file: undoes its newest fix')
    .option('--list', 'list recent fixes and restores, newest first: id, time, whether the file changed since, what changed, file')
    .option('-n, --limit <count>', 'with --list: how many entries', '20')
    .addOption(new Option('-f, --format <name>', 'with --list: output format').choices(['stylish', 'json']).default('stylish'))
    .option('--audit-log <file>', 'the audit log `cclint fix` wrote to (default: $CCLINT_HOME/audit.jsonl)')
    .option('--backup-dir <dir>', 'where to back up the current content first (default: $CCLINT_HOME/backups)')
    .option('--force', 'write even when the session looks active in Claude Code')
    .addHelpText(
      'after',
      `
Examples:
  cclint restore --list                        recent fixes: id, time, state of the file, what changed
  cclint restore m5x2k9q1-3f0a                 undo the fix with this audit id
  cclint restore ~/.claude/projects/-home-me-app/<session>.jsonl
                                               undo the newest fix of this file

The current content is backed up and the restore is audited, so restoring the
restore's own id redoes the fix.

Exit codes: 0 restored (or nothing to do), 2 not restored (unknown id, file changed since the fix, bad backup, live session).`,
    )
    .action((target: string | undefined, options: RestoreCommandOptions) => {
      if (options.list === true) {
        if (target !== undefined) throw new UsageError('restore --list takes no audit id or file');
        const limit = Number(options.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a whole number of 1 or more, not "${options.limit}"`);
        const { auditLog } = statePaths({ env: io.env, cwd: io.cwd, auditLog: options.auditLog });
        const rows = listAudit(port, auditLog, limit);
        io.stdout.write(options.format === 'json' ? `${terminalSafeJson(rows)}\n` : listText(rows, io.cwd));
        setExit(0);
        return;
      }
      if (target === undefined) throw new UsageError('restore needs an audit id or a file (or --list to see recent fixes)');
      // From here Ctrl-C never stops a write half-way (see interrupt.ts).
      handleInterrupts();
      const { undone, entry, undoneBy } = restore(target, {
        fs: port,
        env: io.env,
        cwd: io.cwd,
        auditLog: options.auditLog,
        backupDir: options.backupDir,
        force: options.force === true,
        now: io.now ?? Date.now,
      });
      const shown = classifyPath(undone.file, io.cwd).displayPath;
      const what = entryLabel(undone);
      io.stdout.write(
        undoneBy !== undefined
          ? `${escapeForTerminal(shown)}: ${what} (${undone.time}) was undone already, by restore ${undoneBy.id}; nothing to do (\`${undoCommand(undoneBy.id, options)}\` would redo it)\n`
          : entry === undefined
          ? `${escapeForTerminal(shown)} already holds its content from before ${what}; nothing to do\n`
          : `restored ${escapeForTerminal(shown)} to its content before ${what} (${undone.time}); undo with: ${undoCommand(entry.id, options)}\n`,
      );
      setExit(0);
    });
}
