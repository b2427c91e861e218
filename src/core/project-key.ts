/**
 * Claude Code's cwd → project-folder encoding (format.md §1.2), bit for bit:
 * every UTF-16 code unit that is not [A-Za-z0-9] becomes '-', case is kept,
 * runs of dashes are not collapsed, and a result longer than 200 characters
 * is cut to 200 and suffixed with '-' and the base-36 of a 32-bit string hash
 * of the original path. The mapping is lossy; never try to decode a folder
 * name back into a path.
 */

export const MAX_PROJECT_KEY_PREFIX = 200;

export function projectKey(cwd: string): string {
  const path = cwd;
  let encoded = '';
  for (let i = 0; i < path.length; i++) {
    const unit = path.charCodeAt(i);
    const alnum =
      (unit >= 0x30 && unit <= 0x39) || (unit >= 0x41 && unit <= 0x5a) || (unit >= 0x61 && unit <= 0x7a);
    encoded += alnum ? path[i] : '-';
  }
  if (encoded.length <= MAX_PROJECT_KEY_PREFIX) return encoded;
  return `${encoded.slice(0, MAX_PROJECT_KEY_PREFIX)}-${Math.abs(javaStringHash(path)).toString(36)}`;
}

/** `h = h * 31 + unit` over UTF-16 units, as a signed 32-bit integer. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) {
    h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  }
  return h;
}

/**
 * Rewrites the letters of `cwd` to the casing a folder name encodes. Only
 * meaningful when the two differ in case alone; returns undefined otherwise.
 * Works on the un-hashed prefix, which is where every letter of a path up to
 * 200 characters lives.
 */
export function recaseToFolder(cwd: string, folder: string): string | undefined {
  const key = projectKey(cwd);
  if (key === folder || key.toLowerCase() !== folder.toLowerCase()) return undefined;
  let out = '';
  const limit = Math.min(cwd.length, MAX_PROJECT_KEY_PREFIX);
  for (let i = 0; i < cwd.length; i++) {
    const ch = cwd[i] as string;
    const target = i < limit ? folder[i] : undefined;
    out += target !== undefined && target !== '-' && target.toLowerCase() === ch.toLowerCase() ? target : ch;
  }
  // A hashed key (> 200 characters) also hashes the casing of the tail; only
  // offer the rewrite when it reproduces the folder name exactly.
  return projectKey(out) === folder ? out : undefined;
}
