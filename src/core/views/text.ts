/** Text helpers the view models share with every renderer. */

/** Text on one line, as data: line breaks as `⏎`, tabs as spaces. */
export function flatten(text: string): string {
  return text.replace(/\r\n|\r|\n/g, '⏎').replace(/\t/g, ' ').trim();
}
