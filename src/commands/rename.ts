/**
 * `cclint rename <session> <title>`: sets the title Claude Code shows for a
 * session (the `/resume` picker, the Agent SDK's session listing) the way
 * Claude Code's own `/rename` does: one `custom-title` row,
 * `{"type":"custom-title","customTitle":…,"sessionId":…}`, appended at the
 * end, where the picker reads the last one from the file's tail. The write
 * goes through the fix pipeline (src/repair/write.ts: live check, backup,
 * re-hash, atomic write keeping the file's time, audit line), so
 * `cclint restore <id>` takes it back. Exit 0 renamed (or already so
 * titled), 2 when it cannot be done.
 */
import type fs from 'node:fs';
import { Command } from 'commander';
import { classifyPath, describeFsError } from '../core/discovery.js';
import { LiveSessionError, PathError, UsageError } from '../core/errors.js';
import { RACY_MS, sameStat, settled, statOf } from '../core/file-stat.js';
import { type ByteSource, fileSource } from '../core/reader.js';
import { serializeRecord } from '../core/records.js';
import { resumeModel } from '../core/resume.js';
import { scoreSession } from '../core/score.js';
import { type ExternalParent, SessionIndex } from '../core/session-index.js';
import type { RecordEdit, ResumeSummary } from '../core/types.js';
import { factsOf } from '../core/views/sessions.js';
import { lintIndex } from '../engine/linter.js';
import { escapeForTerminal } from '../escape.js';
import { critical, handleInterrupts } from '../interrupt.js';
import type { Io } from '../io.js';
import { remainingOf } from '../repair/remaining.js';
import { hashingSource, indexRewrite, Rewrite } from '../repair/rewrite.js';
import type { AuditEntry, FilePlan } from '../repair/types.js';
import { runConfig, undoCommand, writeOptions } from './shared.js';
import { loadSession, resolveSessionPath } from './session-arg.js';

/** The `ruleId` rename's audit lines carry (it is no rule). */
export const RENAME_ID = 'rename';

export interface RenameOptions {
  readonly backupDir?: string | undefined;
  readonly auditLog?: string | undefined;
  readonly force?: boolean | undefined;
}

function summary(index: SessionIndex): { resume: ResumeSummary; score: number } {
  const resume = resumeModel(index);
  return {
    resume: { loaded: resume.loaded, total: resume.total, fidelity: resume.fidelity, sdk: resume.sdk },
    score: scoreSession(index, resume).score,
  };
}

/** The row Claude Code writes for a title. */
export function customTitleRow(title: string, sessionId: string): string {
  return serializeRecord({ type: 'custom-title', customTitle: title, sessionId });
}

/** What vouches that the loaded index was built from the file's bytes as they are now (see {@link titledIndex}). */
export interface LoadedFrom {
  /** The file as it was looked at before it was loaded. */
  readonly seen: fs.BigIntStats;
  /** {@link RACY_MS}; tests lower it. */
  readonly racyMs: number;
}

/**
 * The index of the titled text and both digests. The file is read once,
 * hashed as it is read (the old bytes and the new text side by side). The
 * index is the loaded one continued with the new row when the file's times
 * vouch that the loaded index was built from the bytes just hashed (it was
 * settled when it was looked at before loading, and is unchanged now):
 * for a 700 MB session that saves indexing it again, about 2 s. Otherwise
 * it is built from the bytes as they are read.
 */
function titledIndex(
  index: SessionIndex,
  rewrite: Rewrite,
  source: ByteSource,
  loaded: LoadedFrom | undefined,
): { renamed: SessionIndex; sha256Before: string; sha256After: string } {
  const size = source.size;
  const from = index.checkpoint();
  if (loaded !== undefined && from !== undefined && from.stats.byteLength === size && settled(loaded.seen, loaded.racyMs)) {
    const original = hashingSource(Rewrite.identity(size).source(source));
    const sha256After = hashingSource(rewrite.source(original)).digest();
    const sha256Before = original.digest();
    if (sameStat(loaded.seen, index.file.path)) {
      // Only the new row is read: what the checkpoint covers is the file's first `size` bytes, hashed above.
      const renamed = SessionIndex.build(index.file, () => rewrite.source(source), undefined, from);
      return { renamed, sha256Before, sha256After };
    }
  }
  // The index of the new text reads the old bytes in order: they are hashed
  // as it goes, so the file is read once for both digests, not twice.
  const original = hashingSource(Rewrite.identity(size).source(source));
  const { index: renamed, sha256: sha256After } = indexRewrite(index.file, rewrite, original);
  return { renamed, sha256Before: original.digest(), sha256After };
}

/**
 * The plan that appends a `custom-title` row to a session file: the bytes
 * before and after, the edit for the audit log, and the resume figures on
 * both sides (a title changes none of them). `loaded`: how the file was
 * when `index` was loaded, when known.
 */
export function renamePlan(index: SessionIndex, source: ByteSource, title: string, io: Io, loaded?: LoadedFrom): FilePlan {
  const size = source.size;
  if (size === 0) throw new UsageError(`${index.file.displayPath}: the file is empty; nothing to title`);
  const last = Buffer.alloc(1);
  source.read(last, 0, 1, size - 1);
  if (last[0] !== 0x0a) {
    throw new UsageError(
      `${index.file.displayPath}: the last line is not terminated (a torn write?); \`cclint fix\` it first, then rename`,
    );
  }
  const resume = resumeModel(index);
  const sessionId = resume.leaf?.sessionId ?? index.file.layoutSessionId ?? index.records.find((r) => r.sessionId !== undefined)?.sessionId;
  if (sessionId === undefined) throw new UsageError(`${index.file.displayPath}: no session id in the file or its name; cannot title it`);
  const row = customTitleRow(title, sessionId);
  const rewrite = Rewrite.of([
    { kind: 'kept', start: 0, end: size },
    { kind: 'new', bytes: Buffer.from(`${row}\n`, 'utf8') },
  ]);
  const { lint } = runConfig(io, undefined, []);
  const { renamed, sha256Before, sha256After } = titledIndex(index, rewrite, source, loaded);
  const edit: RecordEdit = { kind: 'insertAfter', line: renamed.stats.lineCount - 1, after: [row] };
  // Parents in other files of the group resolve the same way after the write.
  const external = new Map<string, ExternalParent>();
  for (const uuid of renamed.unresolvedParents()) {
    const found = index.externalParent(uuid);
    if (found !== undefined) external.set(uuid, found);
  }
  renamed.setExternalParents(external);
  const before = summary(index);
  const afterSummary = summary(renamed);
  return {
    file: index.file,
    sizeBefore: size,
    sha256Before,
    rewrite,
    sha256After,
    applied: [{ ruleId: RENAME_ID, title: `set the title to "${title}"`, applicability: 'safe', edits: [edit], pass: 1 }],
    skipped: [],
    ...remainingOf(lintIndex(renamed, lint)),
    resumeBefore: before.resume,
    resumeAfter: afterSummary.resume,
    scoreBefore: before.score,
    scoreAfter: afterSummary.score,
  };
}

export function renameCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('rename')
    .description('set the title Claude Code shows for a session (a custom-title row), with a backup and an audit line like `fix`')
    .argument('<session>', 'a session file, or a session id (or its first 8+ characters) under the Claude Code projects folder')
    .argument('<title>', 'the new title')
    .option('--backup-dir <dir>', 'override $CCLINT_HOME/backups')
    .option('--audit-log <file>', 'override $CCLINT_HOME/audit.jsonl')
    .option('--force', 'write even when the session looks active in Claude Code')
    .addHelpText(
      'after',
      `
Appends the row Claude Code's own /rename writes, {"type":"custom-title","customTitle":…,"sessionId":…},
which the /resume picker, \`claude --resume <title>\` and the Agent SDK's session listing read; the last
one wins. Written like a fix: refused while the session looks live (unless --force), backed up,
written atomically keeping the file's time (so \`claude --continue\` still picks the same session),
and recorded in the audit log, so \`cclint restore <id>\` takes the title back.

Examples:
  cclint rename 3f2a9c1e "Login form: validation"
  cclint rename ~/.claude/projects/-home-me-app/<session>.jsonl "Flaky test hunt"
  cclint restore <id printed by rename>             back to the previous title

Exit codes: 0 renamed (or already so titled), 2 not renamed (no such session, a subagent's
transcript, a live session, a backup failure, the file changed meanwhile, an empty title).`,
    )
    .action(async (session: string, rawTitle: string, options: RenameOptions) => {
      const title = rawTitle.replace(/\s+/g, ' ').trim();
      if (title === '') throw new UsageError('rename: give a title that is not blank');
      const file = resolveSessionPath(session, io);
      const classified = classifyPath(file, io.cwd);
      if (classified.role !== 'main') {
        throw new UsageError(`${classified.displayPath}: not a main session file (Claude Code titles sessions, not subagent transcripts)`);
      }
      const { commitPlan, liveRefusalNow } = await import('../repair/write.js');
      const { nodeFs } = await import('../repair/fs-port.js');
      const commitOptions = writeOptions(io, nodeFs(), options, 'yes', { keepMtime: true });
      // Looked at before it is read: a live session is refused at once (the
      // write would refuse it after the whole file was read), and if the file
      // is the same when the plan hashes it, the loaded index is reused.
      const seen = statOf(file);
      const refusal = liveRefusalNow(classified, commitOptions);
      if (refusal !== undefined) throw new LiveSessionError(refusal);
      const index = loadSession(file, io);
      const current = factsOf(index).customTitle;
      const shown = escapeForTerminal(index.file.displayPath);
      if (current === title) {
        io.stdout.write(`${shown} is already titled "${escapeForTerminal(title)}"; nothing to do\n`);
        setExit(0);
        return;
      }
      let source: ByteSource;
      try {
        source = fileSource(index.file.path);
      } catch (error) {
        throw new PathError(describeFsError(error, index.file.displayPath));
      }
      let entry: AuditEntry;
      try {
        const plan = renamePlan(index, source, title, io, seen === undefined ? undefined : { seen, racyMs: RACY_MS });
        // From here Ctrl-C waits for the write (see interrupt.ts); until now, reading and planning, it ended the run at once.
        handleInterrupts();
        // The file keeps its time, so `claude --continue` picks the same session as before.
        entry = await critical(() => commitPlan(plan, commitOptions));
      } finally {
        source.close();
      }
      io.stdout.write(
        `${shown}: titled "${escapeForTerminal(title)}"${current === undefined ? '' : ` (was "${escapeForTerminal(current)}")`}\n` +
          `  backup ${escapeForTerminal(entry.backup)}\n  undo with: ${undoCommand(entry.id, options)}\n`,
      );
      setExit(0);
    });
}
