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

const NO_VALUES: readonly never[] = Object.freeze([]);

/**
 * Lists of values by key, for tables where most keys name one value (a
 * response's `message.id`, a tool call's id): a lone value is kept as it is,
 * a list only from the second value on. On a session of 500,000 records a
 * one-element array per key cost about 60 bytes a record, more than the
 * key's share of the table. Values are objects and never arrays.
 */
export class ListTable<K, V extends object> {
  private readonly table = new Map<K, V | V[]>();

  /** Appends `value` to the list of `key`. */
  add(key: K, value: V): void {
    const found = this.table.get(key);
    if (found === undefined) this.table.set(key, value);
    else if (Array.isArray(found)) found.push(value);
    else this.table.set(key, [found, value]);
  }

  /** The values of `key` in the order added; an empty list when there are none. */
  get(key: K): readonly V[] {
    const found = this.table.get(key);
    if (found === undefined) return NO_VALUES;
    return Array.isArray(found) ? found : [found];
  }

  /** Copies each list of more than one value to its exact size; call once every value is added. */
  trim(): this {
    for (const [key, found] of this.table) if (Array.isArray(found)) this.table.set(key, found.slice());
    return this;
  }
}
