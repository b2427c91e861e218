/**
 * Grouping helpers for the index's long-lived lookup tables. A list built by
 * `push` keeps room for 16 more entries; a session of 100,000 responses
 * would keep 15 MB of that room in one table. The lists are copied to their
 * exact size once the table is built.
 */

/** Appends `value` to the list of `key`, creating it. */
export function addTo<K, V>(table: Map<K, V[]>, key: K, value: V): void {
  const list = table.get(key);
  if (list === undefined) table.set(key, [value]);
  else list.push(value);
}

/** The table with every list of more than one entry copied to its exact size. */
export function trimmed<K, V>(table: Map<K, V[]>): Map<K, V[]> {
  for (const [key, list] of table) if (list.length > 1) table.set(key, list.slice());
  return table;
}
