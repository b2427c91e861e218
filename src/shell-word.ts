/**
 * Words for a command line people copy from cclint's output (`undo with:
 * cclint restore …`, `cd … && claude --resume …`): left as they are when
 * plain, else single-quoted the POSIX way, so a path with spaces or quotes
 * pastes into a shell as one word.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** A command line of {@link shellWord}s. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
