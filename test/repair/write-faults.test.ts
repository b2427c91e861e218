/**
 * The writer's fault paths on an in-memory volume: lines a live session
 * appends at each moment of the swap, lines that cannot follow the fix, a
 * read-back that fails, a run killed between steps (simulated by a port that
 * throws), symbolic links, and forged audit lines.
 */
import { Volume } from 'memfs';
import { beforeEach, describe, expect, it } from 'vitest';
import { BackupError, CclintError, ConcurrentModificationError, PathError } from '../../src/core/errors.js';
import type { FsPort } from '../../src/repair/fs-port.js';
import { isWriterTempName } from '../../src/repair/journal.js';
import { readAuditLog, restore } from '../../src/repair/restore.js';
import type { AuditEntry } from '../../src/repair/types.js';
import type { CommitOptions } from '../../src/repair/write.js';
import { commitPlan, recoverJournals } from '../../src/repair/write.js';
import { memFs } from '../helpers/memfs-port.js';
import { SID, makePlan, relinkPlan, sha, type TestPlan, transcriptLines } from './fixture.js';

const HOME = '/home/me';
const CONFIG = `${HOME}/.claude`;
const ROOT = `${CONFIG}/projects`;
const PROJECT = `${ROOT}/-home-me-app`;
const FILE = `${PROJECT}/${SID}.jsonl`;
const STATE = `${HOME}/.cclint`;
const AUDIT = `${STATE}/audit.jsonl`;
const ENV = { HOME, CCLINT_HOME: STATE, CLAUDE_CONFIG_DIR: CONFIG };
const T0 = Math.floor(Date.now() / 1000) * 1000 - 7_200_000;
const NOW = T0 + 3 * 3_600_000;
const LINE_A = `{"parentUuid":"33333333-3333-4333-8333-333333333333","type":"user","uuid":"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa","sessionId":"${SID}","n":"A"}\n`;
const LINE_B = `{"parentUuid":"aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa","type":"user","uuid":"bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb","sessionId":"${SID}","n":"B"}\n`;

let vol: InstanceType<typeof Volume>;
let port: FsPort;
let plan: TestPlan;

function options(overrides: Partial<CommitOptions> = {}): CommitOptions {
  return { fs: port, env: ENV, cwd: HOME, decidedBy: 'yes', projectsRoot: ROOT, now: () => NOW, isPidAlive: () => false, ...overrides };
}
const bytes = (file: string): Buffer => Buffer.from(vol.readFileSync(file) as Buffer);
const projectFiles = (): string[] => (vol.readdirSync(PROJECT) as string[]).map(String).sort();
const journals = (): string[] => (vol.existsSync(`${STATE}/inflight`) ? (vol.readdirSync(`${STATE}/inflight`) as string[]).map(String) : []);
const backups = (): string[] =>
  Object.keys(vol.toJSON()).filter((p) => p.startsWith(`${STATE}/backups/`) && p.endsWith('.bak'));

/** A plan that gives line 3 a new uuid (as a duplicate-uuid fix does): rows appended under the old one cannot follow it. */
function renumberPlan(): TestPlan {
  const lines = transcriptLines();
  const before = lines[2] ?? '';
  const after = before.replace('33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444');
  const fixed = [...lines];
  fixed[2] = after;
  return makePlan(FILE, Buffer.from(`${lines.join('\n')}\n`), Buffer.from(`${fixed.join('\n')}\n`), [
    { ruleId: 'duplicate-uuid', title: 'new uuid', applicability: 'safe', edits: [{ kind: 'replace', line: 3, before, after: [after] }], pass: 1 },
  ]);
}

/** A port whose rename into FILE runs `hook(oldFd)` right after, with a descriptor still open on the replaced inode. */
function racingRename(hook: (oldFd: number, round: number) => void): FsPort {
  let round = 0;
  const inner = port;
  return {
    ...inner,
    rename(from, to) {
      const fd = to === FILE ? (vol.openSync(to, 'a') as number) : undefined;
      inner.rename(from, to);
      if (fd !== undefined) {
        hook(fd, ++round);
        vol.closeSync(fd);
      }
    },
  };
}

beforeEach(() => {
  plan = relinkPlan(FILE);
  vol = Volume.fromJSON({ [FILE]: plan.before.toString('utf8') });
  vol.utimesSync(FILE, new Date(T0), new Date(T0));
  port = memFs(vol);
});

describe('lines a live session appends during the swap', () => {
  it('a line landing in the replaced file after the rename is carried into the new one', () => {
    port = racingRename((fd, round) => {
      if (round === 1) vol.writeSync(fd, LINE_A);
    });
    const entry = commitPlan(plan, options());
    expect(bytes(FILE).toString()).toBe(plan.after.toString() + LINE_A);
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
    // restore keeps it, after the old bytes
    restore(entry.id, { fs: port, env: ENV, cwd: HOME, now: () => NOW, isPidAlive: () => false, force: true });
    expect(bytes(FILE).toString()).toBe(plan.before.toString() + LINE_A);
  });

  it('a late line in the replaced file and a newer one in the new file keep their order (the file is rebuilt)', () => {
    port = racingRename((fd, round) => {
      if (round === 1) {
        vol.writeSync(fd, LINE_A);
        vol.appendFileSync(FILE, LINE_B);
      }
    });
    commitPlan(plan, options());
    expect(bytes(FILE).toString()).toBe(plan.after.toString() + LINE_A + LINE_B);
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
  });

  it('the rebuilt file keeps the owner and group of the session too', () => {
    // memfs gives root no powers: a mode that lets the writer read and write a file it does not own.
    vol.chownSync(FILE, 1234, 1234);
    vol.chmodSync(FILE, 0o666);
    vol.utimesSync(FILE, new Date(T0), new Date(T0)); // memfs's chown stamps the mtime
    let renames = 0;
    port = racingRename((fd, round) => {
      renames = round;
      if (round === 1) {
        vol.writeSync(fd, LINE_A);
        vol.appendFileSync(FILE, LINE_B);
      }
    });
    commitPlan(plan, options());
    expect(renames).toBe(2); // swapped in, then rebuilt and swapped in again
    expect(bytes(FILE).toString()).toBe(plan.after.toString() + LINE_A + LINE_B);
    const st = vol.statSync(FILE);
    expect([Number(st.uid), Number(st.gid), Number(st.mode) & 0o777]).toEqual([1234, 1234, 0o666]);
  });

  it('lines appended while the temp file was written are topped up before the rename', () => {
    const inner = port;
    port = {
      ...inner,
      writeNewFile(file, data, opts) {
        inner.writeNewFile(file, data, opts);
        if (file.endsWith('.tmp')) vol.appendFileSync(FILE, LINE_A);
      },
    };
    commitPlan(plan, options());
    expect(bytes(FILE).toString()).toBe(plan.after.toString() + LINE_A);
  });

  it('a late line under a uuid the fix changed puts the old bytes back, followed by the line; no audit line, no backup', () => {
    plan = renumberPlan();
    port = racingRename((fd, round) => {
      if (round === 1) vol.writeSync(fd, LINE_A);
    });
    let error: unknown;
    try {
      commitPlan(plan, options());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConcurrentModificationError);
    expect((error as Error).message).toMatch(/old content was put back, followed by every new line; nothing is lost/);
    expect(bytes(FILE).toString()).toBe(plan.before.toString() + LINE_A);
    expect(vol.existsSync(AUDIT)).toBe(false);
    expect(backups()).toEqual([]);
    expect(journals()).toEqual([]);
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
  });

  it('a late line under a uuid the fix changed, seen half-written, is judged whole: the old bytes go back', () => {
    plan = renumberPlan();
    const cut = LINE_A.indexOf('3333-4333'); // inside the uuid the fix changes
    let oldFd: number | undefined;
    const inner = port;
    port = {
      ...inner,
      rename(from, to) {
        if (to === FILE && oldFd === undefined) {
          oldFd = vol.openSync(to, 'a') as number;
          inner.rename(from, to);
          vol.writeSync(oldFd, LINE_A.slice(0, cut));
          return;
        }
        inner.rename(from, to);
      },
      appendFile(file, data, opts) {
        inner.appendFile(file, data, opts);
        // The first half has been carried: the writer finishes its line.
        if (file === FILE && oldFd !== undefined && String(data) === LINE_A.slice(0, cut)) {
          vol.writeSync(oldFd, LINE_A.slice(cut));
          vol.closeSync(oldFd);
        }
      },
    };
    expect(() => commitPlan(plan, options())).toThrow(ConcurrentModificationError);
    expect(bytes(FILE).toString()).toBe(plan.before.toString() + LINE_A);
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
  });

  it('a line under a uuid the fix changed, appended to the new file while a late line is carried, puts the old bytes back', () => {
    plan = renumberPlan();
    port = racingRename((fd, round) => {
      if (round === 1) vol.writeSync(fd, LINE_B); // a late line that fits the new bytes
    });
    const inner = port;
    let raced = false;
    port = {
      ...inner,
      appendFile(file, data, opts) {
        // Between cclint's look at the new file and its append of the late
        // line, the session appends a line under the uuid the fix changed.
        if (file === FILE && !raced && String(data) === LINE_B) {
          raced = true;
          vol.appendFileSync(FILE, LINE_A);
        }
        inner.appendFile(file, data, opts);
      },
    };
    expect(() => commitPlan(plan, options())).toThrow(ConcurrentModificationError);
    expect(raced).toBe(true);
    // The replaced file's late line first, then the new file's (one appender writes in order).
    expect(bytes(FILE).toString()).toBe(plan.before.toString() + LINE_B + LINE_A);
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
  });

  it('a line appended before the swap under a uuid the fix changed: nothing is written', () => {
    plan = renumberPlan();
    vol.appendFileSync(FILE, LINE_A);
    expect(() => commitPlan(plan, options())).toThrow(/refer to records the fix changes; nothing was written/);
    expect(bytes(FILE).toString()).toBe(plan.before.toString() + LINE_A);
    expect(backups()).toEqual([]);
    expect(journals()).toEqual([]);
  });
});

describe('a read-back that fails', () => {
  it('leaves the file as it is (never writes over later bytes) and names the backup', () => {
    let renamed = false;
    const inner = port;
    port = {
      ...inner,
      rename(from, to) {
        inner.rename(from, to);
        if (to === FILE) {
          renamed = true;
          vol.appendFileSync(FILE, LINE_A);
        }
      },
      openRead(file) {
        const handle = inner.openRead(file);
        return renamed ? { ...handle, read: (p, n) => Buffer.alloc(handle.read(p, n).length, 0x20) } : handle;
      },
    };
    let error: unknown;
    try {
      commitPlan(plan, options());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CclintError);
    expect((error as Error).message).toMatch(/did not read back as written; cclint left it as it is.*before the fix is in .*\.jsonl\.bak/);
    expect((error as Error).message).not.toMatch(/copy the backup/);
    expect(bytes(FILE).toString()).toBe(plan.after.toString() + LINE_A);
  });
});

describe('a run killed between steps (the port throws where the kill lands)', () => {
  const kill = (): never => {
    throw Object.assign(new Error('killed'), { code: 'EKILLED' });
  };

  it('after the rename, before the audit line: the next run audits the fix, and restore works', () => {
    port = { ...port, appendFile: (file, data, opts) => (file === AUDIT ? kill() : memFs(vol).appendFile(file, data, opts)) };
    expect(() => commitPlan(plan, options())).toThrow(/could not append to the audit log.*next cclint fix or restore records it/);
    expect(bytes(FILE).equals(plan.after)).toBe(true);
    expect(journals()).toHaveLength(1);
    port = memFs(vol);
    const recovery = recoverJournals({ fs: port, env: ENV, isPidAlive: () => false });
    expect(recovery.audited).toHaveLength(1);
    expect(journals()).toEqual([]);
    const log = readAuditLog(port, AUDIT);
    expect(log.map((e) => e.id)).toEqual(recovery.audited);
    restore(SID + '.jsonl', { fs: port, env: ENV, cwd: PROJECT, now: () => NOW, isPidAlive: () => false, force: true });
    expect(bytes(FILE).equals(plan.before)).toBe(true);
  });

  it('a journal left by a dead run before the rename: the temp file and the backup go, nothing is audited', () => {
    let saved: Record<string, string | null> = {};
    port = {
      ...port,
      rename: () => {
        saved = vol.toJSON();
        kill();
      },
    };
    expect(() => commitPlan(plan, options())).toThrow();
    // Put the volume back as the kill left it: journal, backup, temp file.
    vol = Volume.fromJSON(saved);
    port = memFs(vol);
    expect(projectFiles().some((n) => isWriterTempName(FILE, n))).toBe(true);
    expect(projectFiles().every((n) => !n.endsWith('.jsonl') || n === `${SID}.jsonl`)).toBe(true);
    expect(backups()).toHaveLength(1);
    const recovery = recoverJournals({ fs: port, env: ENV, isPidAlive: () => false });
    expect(recovery.abandoned).toHaveLength(1);
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
    expect(backups()).toEqual([]);
    expect(journals()).toEqual([]);
    expect(bytes(FILE).equals(plan.before)).toBe(true);
  });

  it("a running cclint's journal is left alone", () => {
    vol.mkdirSync(`${STATE}/inflight`, { recursive: true });
    vol.writeFileSync(`${STATE}/inflight/x.json`, JSON.stringify({ version: 1, id: 'x', pid: 4242, file: FILE }));
    expect(recoverJournals({ fs: port, env: ENV, isPidAlive: (pid) => pid === 4242 })).toEqual({ audited: [], abandoned: [] });
    expect(journals()).toEqual(['x.json']);
  });
});

describe('the trust boundary', () => {
  it('never writes through a symlinked session file', () => {
    vol.mkdirSync(`${HOME}/elsewhere`, { recursive: true });
    vol.renameSync(FILE, `${HOME}/elsewhere/real.jsonl`);
    vol.symlinkSync(`${HOME}/elsewhere/real.jsonl`, FILE);
    expect(() => commitPlan(plan, options())).toThrow(PathError);
    expect(() => commitPlan(plan, options())).toThrow(/symbolic link, and cclint never writes through one/);
    expect(bytes(`${HOME}/elsewhere/real.jsonl`).equals(plan.before)).toBe(true);
  });

  it('never writes through a symlinked project folder or backups folder', () => {
    vol.mkdirSync(`${HOME}/elsewhere`, { recursive: true });
    vol.renameSync(PROJECT, `${HOME}/elsewhere/proj`);
    vol.symlinkSync(`${HOME}/elsewhere/proj`, PROJECT);
    expect(() => commitPlan(plan, options())).toThrow(/-home-me-app is a symbolic link/);
    vol.unlinkSync(PROJECT);
    vol.renameSync(`${HOME}/elsewhere/proj`, PROJECT);
    vol.mkdirSync(STATE, { recursive: true });
    vol.symlinkSync(`${HOME}/elsewhere`, `${STATE}/backups`);
    expect(() => commitPlan(plan, options())).toThrow(/state path .*backups is a symbolic link/);
    expect(bytes(FILE).equals(plan.before)).toBe(true);
  });

  it('keeps CCLINT_HOME 0700 and what it writes there 0600', () => {
    vol.mkdirSync(STATE, { recursive: true, mode: 0o755 });
    vol.chmodSync(STATE, 0o755);
    const entry = commitPlan(plan, options());
    expect(Number(vol.statSync(STATE).mode) & 0o777).toBe(0o700);
    expect(Number(vol.statSync(AUDIT).mode) & 0o777).toBe(0o600);
    expect(Number(vol.statSync(entry.backup).mode) & 0o777).toBe(0o600);
  });

  it('restore refuses a forged audit line naming another file or a backup cclint did not make', () => {
    const fix = commitPlan(plan, options());
    vol.mkdirSync(`${HOME}/docs`, { recursive: true });
    vol.writeFileSync(`${HOME}/docs/notes.txt`, 'precious');
    vol.writeFileSync(`${HOME}/docs/evil.jsonl.bak`, 'evil');
    const forge = (changes: Partial<AuditEntry>): void =>
      vol.appendFileSync(AUDIT, `${JSON.stringify({ ...fix, id: `forged-${Object.keys(changes).join('')}`, ...changes })}\n`);
    forge({ file: `${HOME}/docs/notes.txt`, sha256After: sha('precious'), sha256Before: sha('evil'), sizeAfter: 8 });
    forge({ backup: `${HOME}/docs/evil.jsonl.bak`, sha256Before: sha('evil') });
    const o = { fs: port, env: ENV, cwd: HOME, now: () => NOW, isPidAlive: () => false, force: true };
    expect(() => restore('forged-filesha256Aftersha256BeforesizeAfter', o)).toThrow(BackupError);
    expect(() => restore('forged-filesha256Aftersha256BeforesizeAfter', o)).toThrow(/is not a transcript path/);
    expect(() => restore('forged-backupsha256Before', o)).toThrow(/is not where cclint keeps the backups/);
    expect(bytes(`${HOME}/docs/notes.txt`).toString()).toBe('precious');
    expect(bytes(FILE).equals(plan.after)).toBe(true);
  });
});

/**
 * A port that "dies" (every later call throws, as after a SIGKILL nothing
 * more happens) once `killAt` says so; the late lines are written into the
 * replaced inode through a descriptor opened before the rename, as a live
 * Claude Code's append can land there.
 */
function dyingPort(hooks: { afterRename?: (oldFd: number) => boolean; afterAppend?: (file: string, oldFd: number) => boolean }): FsPort {
  const inner = port;
  let dead = false;
  let oldFd: number | undefined;
  const wrapped = {} as Record<keyof FsPort, unknown>;
  for (const key of Object.keys(inner) as Array<keyof FsPort>) {
    const original = inner[key] as (...args: unknown[]) => unknown;
    wrapped[key] = (...args: unknown[]) => {
      if (dead) throw new Error('killed');
      if (key === 'rename' && args[1] === FILE && oldFd === undefined) {
        oldFd = vol.openSync(FILE, 'a') as number;
        original(...args);
        dead = hooks.afterRename?.(oldFd) ?? false;
        return undefined;
      }
      const result = original(...args);
      if (key === 'appendFile' && args[0] === FILE && oldFd !== undefined) dead = hooks.afterAppend?.(String(args[0]), oldFd) ?? false;
      return result;
    };
  }
  return wrapped as unknown as FsPort;
}

describe('a run killed while late lines are carried (the old inode keeps a hidden second name)', () => {
  const commitDying = (dying: FsPort): void => {
    const healthy = port;
    port = dying;
    expect(() => commitPlan(plan, options())).toThrow();
    port = healthy;
  };

  it('a line written into the replaced inode just before the kill is appended by the next run; restore keeps it', () => {
    commitDying(
      dyingPort({
        afterRename: (fd) => {
          vol.writeSync(fd, LINE_A);
          return true;
        },
      }),
    );
    expect(projectFiles()).toHaveLength(2); // the session and the old inode's hidden name
    recoverJournals(options());
    expect(bytes(FILE).toString()).toBe(plan.after.toString() + LINE_A);
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
    expect(journals()).toEqual([]);
    const audit = readAuditLog(port, AUDIT);
    expect(audit).toHaveLength(1);
    restore(audit[0]?.id ?? '', { fs: port, env: ENV, cwd: HOME, now: () => NOW, isPidAlive: () => false, force: true });
    expect(bytes(FILE).toString()).toBe(plan.before.toString() + LINE_A);
  });

  it('lines carried before the kill are not written twice; the one after them is added', () => {
    let appended = false;
    commitDying(
      dyingPort({
        afterRename: (fd) => {
          vol.writeSync(fd, LINE_A);
          return false;
        },
        afterAppend: (_file, fd) => {
          if (appended) return false;
          appended = true;
          vol.writeSync(fd, LINE_B);
          return true;
        },
      }),
    );
    recoverJournals(options());
    expect(bytes(FILE).toString()).toBe(plan.after.toString() + LINE_A + LINE_B);
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
  });

  it('a file rewritten by someone before the next run: untouched, the old inode kept beside the backup', () => {
    commitDying(
      dyingPort({
        afterRename: (fd) => {
          vol.writeSync(fd, LINE_A);
          return true;
        },
      }),
    );
    vol.writeFileSync(FILE, LINE_B);
    recoverJournals(options());
    expect(bytes(FILE).toString()).toBe(LINE_B);
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
    const kept = Object.keys(vol.toJSON()).filter((p) => p.startsWith(`${STATE}/backups/`) && p.endsWith('.old-inode'));
    expect(kept).toHaveLength(1);
    expect(bytes(kept[0] ?? '').toString()).toBe(plan.before.toString() + LINE_A);
  });

  it('a file system without hard links: the commit goes on without the second name', () => {
    const inner = port;
    port = {
      ...inner,
      link() {
        throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
      },
    };
    commitPlan(plan, options());
    expect(bytes(FILE).toString()).toBe(plan.after.toString());
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
    expect(readAuditLog(port, AUDIT)).toHaveLength(1);
  });

  it('a path replaced between the open and the link: nothing is written, the old bytes stay in the backup', () => {
    const inner = port;
    port = {
      ...inner,
      link(from, to) {
        // Someone renames another file over the session right before the link.
        vol.writeFileSync(`${PROJECT}/other`, 'other\n');
        vol.renameSync(`${PROJECT}/other`, FILE);
        inner.link(from, to);
      },
    };
    expect(() => commitPlan(plan, options())).toThrow(ConcurrentModificationError);
    expect(bytes(FILE).toString()).toBe('other\n');
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
    // The old bytes are no longer anywhere but in the backup: it is kept.
    expect(backups().map((b) => bytes(b).toString())).toEqual([plan.before.toString()]);
    expect(journals()).toEqual([]);
  });

  it('a healthy commit leaves no second name behind', () => {
    commitPlan(plan, options());
    expect(projectFiles()).toEqual([`${SID}.jsonl`]);
    expect(vol.statSync(FILE).nlink).toBe(1);
  });
});
