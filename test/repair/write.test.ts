/**
 * The writer on an in-memory volume: every refusal leaves the transcript
 * byte-identical and writes no audit line; the happy path leaves a verified
 * 0600 backup, the new bytes, and one audit line without record bodies.
 */
import path from 'node:path';
import { Volume } from 'memfs';
import { beforeEach, describe, expect, it } from 'vitest';
import { BackupError, ConcurrentModificationError, LiveSessionError, PathError } from '../../src/core/errors.js';
import type { FsPort } from '../../src/repair/fs-port.js';
import { readAuditLog, restore } from '../../src/repair/restore.js';
import { listAudit } from '../../src/repair/audit-list.js';
import type { AuditEdit, AuditEntry } from '../../src/repair/types.js';
import type { CommitOptions } from '../../src/repair/write.js';
import { auditFixes, cclintHome, commitPlan } from '../../src/repair/write.js';
import { failingFs, memFs } from '../helpers/memfs-port.js';
import { SECRET, SID, makePlan, relinkPlan, sha, type TestPlan } from './fixture.js';

const HOME = '/home/me';
const CONFIG = `${HOME}/.claude`;
const ROOT = `${CONFIG}/projects`;
const PROJECT = `${ROOT}/-home-me-app`;
const FILE = `${PROJECT}/${SID}.jsonl`;
const RESUME_HEAD = `${PROJECT}/${SID}/resume-head.jsonl`;
const STATE = `${HOME}/.cclint`;
const AUDIT = `${STATE}/audit.jsonl`;
const ENV = { HOME, CCLINT_HOME: STATE, CLAUDE_CONFIG_DIR: CONFIG };
// memfs stamps files with the real clock: the transcript is two hours old, and
// "now" is an hour ahead, so files cclint writes look settled too.
const T0 = Math.floor(Date.now() / 1000) * 1000 - 7_200_000;
const NOW = T0 + 3 * 3_600_000;

let vol: InstanceType<typeof Volume>;
let port: FsPort;
let plan: TestPlan;

function options(overrides: Partial<CommitOptions> = {}): CommitOptions {
  return {
    fs: port,
    env: ENV,
    cwd: HOME,
    decidedBy: 'yes',
    projectsRoot: ROOT,
    now: () => NOW,
    isPidAlive: () => false,
    ...overrides,
  };
}

const bytes = (file: string): Buffer => Buffer.from(vol.readFileSync(file) as Buffer);
const mode = (file: string): number => Number(vol.statSync(file).mode) & 0o777;
const auditLines = (): string[] =>
  vol.existsSync(AUDIT) ? String(vol.readFileSync(AUDIT, 'utf8')).split('\n').filter((l) => l !== '') : [];

/** Every file under a folder (recursively), or [] if it does not exist. */
function filesUnder(dir: string): string[] {
  return Object.entries(vol.toJSON())
    .filter(([p, content]) => content !== null && p.startsWith(`${dir}/`))
    .map(([p]) => p);
}

function expectUntouched(): void {
  expect(sha(bytes(FILE))).toBe(plan.sha256Before);
  expect(auditLines()).toEqual([]);
}

beforeEach(() => {
  plan = relinkPlan(FILE);
  vol = Volume.fromJSON({ [FILE]: plan.before.toString('utf8'), [RESUME_HEAD]: '{"type":"resume-head-vouch"}\n' });
  vol.chmodSync(FILE, 0o640);
  vol.utimesSync(FILE, new Date(T0), new Date(T0));
  port = memFs(vol);
});

describe('commitPlan', () => {
  it('backs up (0600, old bytes), writes the new bytes keeping the mode, and audits hashes and the decider', () => {
    const entry = commitPlan(plan, options({ decidedBy: 'interactive' }));

    expect(bytes(FILE).equals(plan.after)).toBe(true);
    expect(mode(FILE)).toBe(0o640);

    expect(entry.backup.startsWith(`${STATE}/backups/-home-me-app/${SID}/`)).toBe(true);
    const stamp = new Date(NOW).toISOString().replaceAll(':', '').replace('.', '-');
    expect(path.basename(entry.backup)).toBe(`${stamp}-${plan.sha256Before.slice(0, 8)}.jsonl.bak`);
    expect(entry.backup.endsWith('.jsonl')).toBe(false);
    expect(bytes(entry.backup).equals(plan.before)).toBe(true);
    expect(mode(entry.backup)).toBe(0o600);

    const lines = auditLines();
    expect(lines).toHaveLength(1);
    expect(mode(AUDIT)).toBe(0o600);
    const logged = JSON.parse(lines[0] ?? '') as AuditEntry;
    expect(logged).toEqual(entry);
    expect(logged).toMatchObject({
      kind: 'fix',
      file: FILE,
      sessionId: SID,
      sha256Before: plan.sha256Before,
      sha256After: plan.sha256After,
      backup: entry.backup,
      decidedBy: 'interactive',
      time: new Date(NOW).toISOString(),
      resumeBefore: plan.resumeBefore,
      resumeAfter: plan.resumeAfter,
      scoreBefore: 0.8,
      scoreAfter: 0,
    });
    expect(typeof logged.cclintVersion).toBe('string');
    expect(logged.id).toMatch(/^[0-9a-z]+-[0-9a-f]{6}$/);
    expect(logged.fixes).toHaveLength(1);
    expect(logged.fixes[0]?.edits[0]?.edit).toMatchObject({ kind: 'replace', line: 3, lines: 1 });
    expect(logged.fixes[0]?.edits[0]?.inverse).toMatchObject({ kind: 'replace', line: 3, lines: 1 });
    // Line numbers and hashes only: no record body reaches the audit log.
    expect(lines[0]).not.toContain(SECRET);
    expect(lines[0]).not.toContain('"message"');

    expect(vol.existsSync(RESUME_HEAD)).toBe(false);
    expect(Number(vol.statSync(FILE).mtimeMs)).not.toBe(T0);
    expect(filesUnder(PROJECT).sort()).toEqual([FILE]); // no temp file, no backup beside the session
    expect(filesUnder(`${STATE}/inflight`)).toEqual([]);
  });

  it('gives every commit its own id and backup, even within one millisecond and for the same bytes', () => {
    const first = commitPlan(plan, options());
    const second = commitPlan(makePlan(FILE, plan.after, plan.before), options());
    const third = commitPlan(plan, options());
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
    expect(new Set([first.backup, second.backup, third.backup]).size).toBe(3);
    expect(third.backup).toBe(first.backup.replace(/\.jsonl\.bak$/, '-1.jsonl.bak'));
    expect(bytes(second.backup).equals(plan.after)).toBe(true);
    expect(bytes(third.backup).equals(plan.before)).toBe(true);
    expect(auditLines()).toHaveLength(3);
  });

  it('keeps the owner and group of the file it replaces (a sudo fix leaves the session its user can append to), and restore does too', () => {
    // memfs gives root no powers: a mode that lets the writer read and write a file it does not own.
    vol.chownSync(FILE, 1234, 1234);
    vol.chmodSync(FILE, 0o666);
    vol.utimesSync(FILE, new Date(T0), new Date(T0)); // memfs's chown stamps the mtime
    const owner = (): [number, number, number] => {
      const st = vol.statSync(FILE);
      return [Number(st.uid), Number(st.gid), Number(st.mode) & 0o777];
    };
    const fix = commitPlan(plan, options({ now: Date.now }));
    expect(bytes(FILE).equals(plan.after)).toBe(true);
    expect(owner()).toEqual([1234, 1234, 0o666]);
    restore(fix.id, { fs: port, env: ENV, cwd: HOME, now: Date.now, isPidAlive: () => false });
    expect(bytes(FILE).equals(plan.before)).toBe(true);
    expect(owner()).toEqual([1234, 1234, 0o666]);
  });

  it('puts the old mtime back only with keepMtime', () => {
    commitPlan(plan, options({ keepMtime: true }));
    expect(Number(vol.statSync(FILE).mtimeMs)).toBe(T0);
  });

  it('refuses a file whose planned bytes changed between planning and writing, leaving it and the audit log alone', () => {
    vol.writeFileSync(FILE, plan.before.toString().replace('"content":"hi"', '"content":"ho"'));
    const changed = bytes(FILE);
    expect(() => commitPlan(plan, options())).toThrow(ConcurrentModificationError);
    expect(bytes(FILE).equals(changed)).toBe(true);
    expect(auditLines()).toEqual([]);
    expect(filesUnder(`${STATE}/backups`)).toEqual([]);
    expect(filesUnder(`${STATE}/inflight`)).toEqual([]);
  });

  it('carries lines appended between planning and writing into the new file, after the new bytes', () => {
    const appended = '{"type":"user","appended":"by Claude Code"}\n';
    vol.appendFileSync(FILE, appended);
    const entry = commitPlan(plan, options());
    expect(bytes(FILE).toString()).toBe(plan.after.toString() + appended);
    expect(entry.sizeAfter).toBe(plan.after.length);
    expect(bytes(entry.backup).equals(plan.before)).toBe(true);
    expect(auditLines()).toHaveLength(1);
  });

  it('refuses a file that changed while the backup was being written, and drops that backup', () => {
    const racing: FsPort = {
      ...port,
      writeNewFile(file, data, opts) {
        port.writeNewFile(file, data, opts);
        if (file.endsWith('.jsonl.bak')) vol.writeFileSync(FILE, `{"type":"user","late":true}\n${plan.before.toString()}`);
      },
    };
    let error: unknown;
    try {
      commitPlan(plan, options({ fs: racing }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConcurrentModificationError);
    expect((error as ConcurrentModificationError).exitCode).toBe(2);
    expect(bytes(FILE).toString()).toContain('"late":true');
    expect(auditLines()).toEqual([]);
    expect(filesUnder(`${STATE}/backups`)).toEqual([]);
    expect(filesUnder(`${STATE}/inflight`)).toEqual([]);
  });

  describe('backup failures abort before anything is written', () => {
    it('an unwritable backup folder', () => {
      vol.mkdirSync(STATE, { recursive: true });
      vol.mkdirSync(`${STATE}/backups`, { mode: 0o500 });
      let error: unknown;
      try {
        commitPlan(plan, options());
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(BackupError);
      expect((error as BackupError).exitCode).toBe(2);
      expect((error as Error).message).toMatch(/could not back up .*nothing was changed/);
      expectUntouched();
      expect(vol.existsSync(RESUME_HEAD)).toBe(true);
    });

    it('a write that throws', () => {
      expect(() => commitPlan(plan, options({ fs: failingFs(port, `${STATE}/backups`, ['writeNewFile']) }))).toThrow(BackupError);
      expectUntouched();
    });

    it('a copy that does not read back as written', () => {
      const corrupting: FsPort = {
        ...port,
        writeNewFile: (file, data, opts) => port.writeNewFile(file, Buffer.concat([...(Buffer.isBuffer(data) ? [data] : data), Buffer.from('x')]), opts),
      };
      expect(() => commitPlan(plan, options({ fs: corrupting }))).toThrow(/does not match/);
      expectUntouched();
      expect(filesUnder(`${STATE}/backups`)).toEqual([]); // the bad copy is not kept
    });
  });

  describe('live sessions', () => {
    it('refuses a file changed within the last minute, naming it and --force', () => {
      vol.utimesSync(FILE, new Date(NOW - 5_000), new Date(NOW - 5_000));
      let error: unknown;
      try {
        commitPlan(plan, options());
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(LiveSessionError);
      expect((error as LiveSessionError).exitCode).toBe(2);
      expect((error as Error).message).toContain(`${SID}.jsonl`);
      expect((error as Error).message).toMatch(/5 s ago.*--force/);
      expectUntouched();
      expect(vol.existsSync(STATE)).toBe(false); // not even a backup
    });

    it('refuses a session held by a live process in <config>/sessions/', () => {
      vol.mkdirSync(`${CONFIG}/sessions`, { recursive: true });
      vol.writeFileSync(`${CONFIG}/sessions/4242.json`, JSON.stringify({ pid: 4242, sessionId: SID, cwd: '/home/me/app' }));
      vol.writeFileSync(`${CONFIG}/sessions/77.json`, JSON.stringify({ pid: 77, sessionId: 'another-session' }));
      vol.writeFileSync(`${CONFIG}/sessions/broken.json`, '{not json');
      const alive = (pid: number): boolean => pid === 4242 || pid === 77;
      expect(() => commitPlan(plan, options({ isPidAlive: alive }))).toThrow(/open in a running Claude Code \(pid 4242/);
      expectUntouched();
      // The same entry with a dead pid does not block.
      commitPlan(plan, options({ isPidAlive: (pid) => pid === 77 }));
      expect(bytes(FILE).equals(plan.after)).toBe(true);
    });

    it('does not block on a missing or unreadable registry', () => {
      vol.mkdirSync(`${CONFIG}/sessions`, { recursive: true, mode: 0o000 });
      commitPlan(plan, options({ isPidAlive: () => true }));
      expect(bytes(FILE).equals(plan.after)).toBe(true);
    });

    it('--force writes anyway', () => {
      vol.utimesSync(FILE, new Date(NOW - 1_000), new Date(NOW - 1_000));
      vol.mkdirSync(`${CONFIG}/sessions`, { recursive: true });
      vol.writeFileSync(`${CONFIG}/sessions/4242.json`, JSON.stringify({ pid: 4242, sessionId: SID }));
      commitPlan(plan, options({ force: true, isPidAlive: () => true }));
      expect(bytes(FILE).equals(plan.after)).toBe(true);
    });
  });

  describe('state never goes inside the projects root', () => {
    it.each([
      ['CCLINT_HOME', { env: { ...ENV, CCLINT_HOME: `${ROOT}/.cclint` } }],
      ['--backup-dir', { backupDir: `${PROJECT}/backups` }],
      ['--backup-dir (relative)', { backupDir: 'backups', cwd: ROOT }],
      ['--audit-log', { auditLog: `${ROOT}/audit.jsonl` }],
    ] as const)('%s inside it is a BackupError', (_name, overrides) => {
      expect(() => commitPlan(plan, options(overrides))).toThrow(/inside the Claude Code projects folder/);
      expect(() => commitPlan(plan, options(overrides))).toThrow(BackupError);
      expect(sha(bytes(FILE))).toBe(plan.sha256Before);
      expect(filesUnder(ROOT).sort()).toEqual([FILE, RESUME_HEAD]);
    });

    it('CCLINT_HOME defaults to <HOME>/.cclint from the injected env', () => {
      expect(cclintHome({ HOME: '/x' })).toBe('/x/.cclint');
      expect(cclintHome({ HOME: '/x', CCLINT_HOME: '/y' })).toBe('/y');
    });
  });

});

describe('commitPlan when another run already wrote the same fix', () => {
  it('writes nothing, and leaves no audit line, journal or backup (it wrote nothing, though the file holds its planned bytes)', () => {
    // Another cclint fixed the file the same way after this plan was made.
    vol.writeFileSync(FILE, plan.after);
    vol.utimesSync(FILE, new Date(T0), new Date(T0));
    expect(() => commitPlan(plan, options())).toThrow(ConcurrentModificationError);
    expect(bytes(FILE).equals(plan.after)).toBe(true);
    expect(auditLines()).toEqual([]);
    expect(filesUnder(path.join(ENV.CCLINT_HOME as string, 'inflight'))).toEqual([]);
    expect(filesUnder(path.join(ENV.CCLINT_HOME as string, 'backups'))).toEqual([]);
  });
});

describe('restore', () => {
  const restoreOptions = (overrides: object = {}) => ({ fs: port, env: ENV, cwd: HOME, now: () => NOW, isPidAlive: () => false, ...overrides });

  it('puts the old bytes back and audits the restore, which itself can be restored', () => {
    // On the real clock: right after the fix, its own recent mtime does not count as a live session.
    const fix = commitPlan(plan, options({ now: Date.now }));
    const { undone, entry } = restore(fix.id, restoreOptions({ now: Date.now }));
    expect(undone.id).toBe(fix.id);
    expect(bytes(FILE).equals(plan.before)).toBe(true);
    expect(mode(FILE)).toBe(0o640);
    expect(entry).toMatchObject({ kind: 'restore', restores: fix.id, sha256Before: plan.sha256After, sha256After: plan.sha256Before });
    expect(bytes(entry?.backup ?? '').equals(plan.after)).toBe(true);
    const log = readAuditLog(port, AUDIT);
    expect(log.map((e) => e.id)).toEqual([fix.id, entry?.id]);

    const redo = restore(entry?.id ?? '', restoreOptions({ now: Date.now }));
    expect(redo.undone.id).toBe(entry?.id);
    expect(bytes(FILE).equals(plan.after)).toBe(true);
  });

  it('finds the newest fix of a file by path, and undoes fixes newest first', () => {
    const first = commitPlan(plan, options());
    const third = Buffer.from(`${plan.after.toString()}{"type":"custom-title","customTitle":"t","sessionId":"${SID}"}\n`);
    const second = commitPlan(makePlan(FILE, plan.after, third), options());
    expect(restore(FILE, restoreOptions()).undone.id).toBe(second.id);
    expect(bytes(FILE).equals(plan.after)).toBe(true);
    expect(restore(path.relative(HOME, FILE), restoreOptions()).undone.id).toBe(first.id);
    expect(bytes(FILE).equals(plan.before)).toBe(true);
    const again = restore(FILE, restoreOptions());
    expect(again.entry).toBeUndefined(); // already back to where it started
    expect(again.undone.id).toBe(first.id);
    expect(readAuditLog(port, AUDIT)).toHaveLength(4);
  });

  it('says a fix is undone already, by which restore, when lines were appended after the undo, by path or by id; writes nothing', () => {
    const fix = commitPlan(plan, options());
    const undo = restore(fix.id, restoreOptions()).entry;
    vol.appendFileSync(FILE, '{"type":"user","later":true}\n');
    const grown = bytes(FILE);
    for (const target of [FILE, fix.id]) {
      const again = restore(target, restoreOptions());
      expect([again.undone.id, again.entry, again.undoneBy?.id]).toEqual([fix.id, undefined, undo?.id]);
    }
    expect(bytes(FILE).equals(grown)).toBe(true);
    expect(auditLines()).toHaveLength(2);
  });

  it('redoes through a chain of restores: a restore undone and then overtaken by a later restore of the fix can be restored again', () => {
    // F1 fixes; R1 undoes F1; R2 undoes R1 (redoes F1); R3 undoes F1 again. Restoring R1 now redoes F1.
    const f1 = commitPlan(plan, options());
    const r1 = restore(f1.id, restoreOptions()).entry;
    const r2 = restore(r1?.id ?? '', restoreOptions()).entry;
    expect(bytes(FILE).equals(plan.after)).toBe(true);
    const r3 = restore(f1.id, restoreOptions());
    expect([r3.undoneBy, r3.entry?.restores]).toEqual([undefined, f1.id]);
    expect(bytes(FILE).equals(plan.before)).toBe(true);
    const redo = restore(r1?.id ?? '', restoreOptions());
    expect([redo.undoneBy, redo.entry?.restores]).toEqual([undefined, r1?.id]);
    expect(bytes(FILE).equals(plan.after)).toBe(true);
    expect(r2?.restores).toBe(r1?.id);
  });

  it('refuses a file replaced by a symbolic link (even to the same bytes) as one it does not write, and the list says so', () => {
    const fix = commitPlan(plan, options());
    const elsewhere = `${HOME}/elsewhere.jsonl`;
    vol.writeFileSync(elsewhere, plan.after);
    vol.unlinkSync(FILE);
    vol.symlinkSync(elsewhere, FILE);
    expect(() => restore(fix.id, restoreOptions())).toThrow(
      new PathError(`cannot restore ${path.relative(HOME, FILE)}: it is a symbolic link now, which cclint does not write; the copy from before fix ${fix.id} is ${fix.backup}`),
    );
    expect(listAudit(port, AUDIT, 5).map((row) => row.state)).toEqual(['replaced']);
    expect(bytes(elsewhere).equals(plan.after)).toBe(true);
    expect(auditLines()).toHaveLength(1);
  });

  it('refuses when the fixed bytes changed since the fix', () => {
    const fix = commitPlan(plan, options());
    vol.writeFileSync(FILE, plan.after.toString().replace('"content":"hi"', '"content":"ho"'));
    const changed = bytes(FILE);
    let error: unknown;
    try {
      restore(fix.id, restoreOptions());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConcurrentModificationError);
    expect((error as ConcurrentModificationError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(/changed after fix .*would lose those changes/);
    expect(bytes(FILE).equals(changed)).toBe(true);
    expect(auditLines()).toHaveLength(1);
  });

  it('keeps lines appended after the fix, after the old bytes', () => {
    const fix = commitPlan(plan, options());
    const later = '{"type":"user","later":true}\n';
    vol.appendFileSync(FILE, later);
    const { entry } = restore(fix.id, restoreOptions());
    expect(bytes(FILE).toString()).toBe(plan.before.toString() + later);
    expect(entry?.sizeAfter).toBe(plan.before.length + later.length);
    // ...and restoring the restore gives the fixed bytes back, with the line.
    restore(entry?.id ?? '', restoreOptions());
    expect(bytes(FILE).toString()).toBe(plan.after.toString() + later);
  });

  it('refuses when lines added after the fix hang from a record the fix made (a fresh uuid), which the restore would take away', () => {
    // A fix that gave line 3 a fresh uuid (as duplicate-uuid's does).
    const fresh = '44444444-4444-4444-8444-444444444444';
    const renamed = makePlan(FILE, plan.before, Buffer.from(plan.before.toString().replace('33333333-3333-4333-8333-333333333333', fresh)));
    vol.writeFileSync(FILE, renamed.before);
    const fix = commitPlan(renamed, options());
    const later = `{"type":"user","uuid":"55555555-5555-4555-8555-555555555555","parentUuid":"${fresh}"}\n`;
    vol.appendFileSync(FILE, later);
    const current = bytes(FILE);
    expect(() => restore(fix.id, restoreOptions())).toThrow(
      new RegExp(`refusing to restore .*lines added after fix .* refer to a record it made \\(uuid ${fresh}\\)`),
    );
    expect(bytes(FILE).equals(current)).toBe(true);
    expect(auditLines()).toHaveLength(1);
    // A line that names only records the backup holds too is kept, as before.
    vol.writeFileSync(FILE, renamed.after);
    const other = '{"type":"user","uuid":"66666666-6666-4666-8666-666666666666","parentUuid":"22222222-2222-4222-8222-222222222222"}\n';
    vol.appendFileSync(FILE, other);
    restore(fix.id, restoreOptions());
    expect(bytes(FILE).toString()).toBe(renamed.before.toString() + other);
  });

  it('refuses a backup that is not what the fix recorded', () => {
    const fix = commitPlan(plan, options());
    vol.chmodSync(fix.backup, 0o600);
    vol.writeFileSync(fix.backup, 'tampered');
    expect(() => restore(fix.id, restoreOptions())).toThrow(BackupError);
    expect(bytes(FILE).equals(plan.after)).toBe(true);
  });

  it('refuses an unknown id and a deleted file', () => {
    const fix = commitPlan(plan, options());
    expect(() => restore('nope', restoreOptions())).toThrow(/no audit entry with id "nope"/);
    vol.unlinkSync(FILE);
    expect(() => restore(fix.id, restoreOptions())).toThrow(PathError);
  });
});

describe('auditFixes', () => {
  /** Applies one pass of edits (line numbers against `lines`). */
  function applyPass(lines: readonly string[], edits: ReadonlyArray<AuditEdit & { text?: string[] }>): string[] {
    const out: string[] = [];
    const at = (kind: string, line: number) => edits.filter((e) => e.kind === kind && e.line === line);
    for (const e of at('insertAfter', 0)) out.push(...(e.text ?? []));
    for (let i = 0; i < lines.length; i++) {
      const n = i + 1;
      const replace = at('replace', n)[0];
      const del = at('delete', n)[0];
      if (replace !== undefined) out.push(...(replace.text ?? []));
      else if (del === undefined) out.push(lines[i] ?? '');
      for (const e of at('insertAfter', n)) out.push(...(e.text ?? []));
    }
    return out;
  }

  it('gives inverses that, applied to the pass output, give back the input', () => {
    const input = ['a', 'b', 'c', 'd', 'e'];
    const fixes = auditFixes([
      {
        ruleId: 'r1',
        title: 't1',
        applicability: 'safe',
        pass: 1,
        edits: [
          { kind: 'insertAfter', line: 0, after: ['first'] },
          { kind: 'replace', line: 2, before: 'b', after: ['b1', 'b2'] },
        ],
      },
      {
        ruleId: 'r2',
        title: 't2',
        applicability: 'unsafe',
        pass: 1,
        edits: [
          { kind: 'delete', line: 3, before: 'c' },
          { kind: 'insertAfter', line: 4, after: ['x', 'y'] },
          { kind: 'replace', line: 5, before: 'e', after: [] },
        ],
      },
    ]);
    const texts: Record<string, string[]> = {
      [sha('first')]: ['first'],
      [sha('b1\nb2')]: ['b1', 'b2'],
      [sha('x\ny')]: ['x', 'y'],
      [sha('b')]: ['b'],
      [sha('c')]: ['c'],
      [sha('e')]: ['e'],
      [sha('')]: [],
    };
    const withText = (e: AuditEdit) => ({ ...e, text: 'sha256After' in e ? texts[e.sha256After] : undefined });
    const forward = fixes.flatMap((f) => f.edits.map((x) => withText(x.edit)));
    const output = applyPass(input, forward);
    expect(output).toEqual(['first', 'a', 'b1', 'b2', 'd', 'x', 'y']);

    // Inverses address the output; multi-line spans are expanded here.
    const inverses = fixes.flatMap((f) => f.edits.map((x) => x.inverse));
    const restored: Array<string | undefined> = [...output];
    const inserts: Array<[number, string[]]> = [];
    for (const inv of inverses) {
      if (inv.kind === 'insertAfter') {
        inserts.push([inv.line, texts[inv.sha256After] ?? []]);
        continue;
      }
      const span = inv.span ?? 1;
      const removed = output.slice(inv.line - 1, inv.line - 1 + span);
      expect(sha(removed.join('\n'))).toBe(inv.sha256Before);
      for (let i = 0; i < span; i++) restored[inv.line - 1 + i] = undefined;
      if (inv.kind === 'replace') restored[inv.line - 1] = (texts[inv.sha256After] ?? []).join('\n');
    }
    const rebuilt: string[] = [];
    for (const [line, text] of inserts.filter(([l]) => l === 0)) if (line === 0) rebuilt.push(...text);
    restored.forEach((value, i) => {
      if (value !== undefined) rebuilt.push(value);
      for (const [line, text] of inserts) if (line === i + 1) rebuilt.push(...text);
    });
    expect(rebuilt).toEqual(input);
  });
});
