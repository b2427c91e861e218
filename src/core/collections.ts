/**
 * A table for the index's long-lived lookups, where most keys name one
 * record.
 */

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

  /** The keys, in the order each was first added. */
  keys(): IterableIterator<K> {
    return this.table.keys();
  }

  /** Copies each list of more than one value to its exact size; call once every value is added. */
  trim(): this {
    for (const [key, found] of this.table) if (Array.isArray(found)) this.table.set(key, found.slice());
    return this;
  }
}
