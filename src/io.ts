/**
 * Everything a command touches of the outside world, injected so commands
 * run in-process in tests with captured output, a fake environment and no
 * access to the real home folder.
 */
export interface OutputStream {
  write(text: string): void;
  readonly isTTY: boolean;
  readonly columns?: number | undefined;
}

export interface Io {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly stdinIsTTY: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Asks one question on the terminal; tests answer it themselves. */
  readonly ask?: ((question: string) => Promise<string>) | undefined;
  /** The clock, for live-session checks and audit times. */
  readonly now?: (() => number) | undefined;
}

export function processIo(): Io {
  return {
    stdout: {
      write: (text) => void process.stdout.write(text),
      isTTY: process.stdout.isTTY === true,
      columns: process.stdout.columns,
    },
    stderr: {
      write: (text) => void process.stderr.write(text),
      isTTY: process.stderr.isTTY === true,
      columns: process.stderr.columns,
    },
    stdinIsTTY: process.stdin.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Colour for a stream: a TTY, and neither NO_COLOR nor --no-color. */
export function useColor(stream: OutputStream, env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY;
}
