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
    stdout: processStream(process.stdout),
    stderr: processStream(process.stderr),
    stdinIsTTY: process.stdin.isTTY === true,
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * A reader that stops early (`cclint check | head`) closes the pipe. Like
 * other Unix tools, cclint then stops writing without a stack trace; the run
 * itself goes on to its end and its own exit code, so a fix under way is
 * never cut short by a closed pipe.
 */
function processStream(stream: NodeJS.WriteStream): OutputStream {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    closed = true;
  });
  return {
    write: (text) => {
      if (!closed) stream.write(text);
    },
    isTTY: stream.isTTY === true,
    columns: stream.columns,
  };
}

/** Colour for a stream: a TTY, and neither NO_COLOR nor --no-color. */
export function useColor(stream: OutputStream, env: NodeJS.ProcessEnv, flag: boolean | undefined): boolean {
  if (flag === false) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY;
}
