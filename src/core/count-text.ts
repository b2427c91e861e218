/**
 * Numbers as `toLocaleString('en-US')` writes them ("12,345"), without ICU
 * for the integers every message and summary prints: the first
 * `toLocaleString` or `Intl.NumberFormat` of a process loads ICU's locale
 * data, about 11 ms of every run (a warm `check --cache` of a whole tree
 * takes under 400 ms). Anything but a safe integer (a fraction, -0,
 * beyond 2^53) goes to `toLocaleString` itself, so the text never differs.
 */
export function countText(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let grouped = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = grouped.length; i < digits.length; i += 3) grouped += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${grouped}` : grouped;
}
