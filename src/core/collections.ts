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

/**
 * The first position in [lo, hi) of `items` where `after` holds, or `hi`:
 * a binary search, for a predicate that holds from some position on.
 */
export function firstPosition<T>(items: readonly T[], after: (item: T) => boolean, lo = 0, hi = items.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (after(items[mid] as T)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

const NO_VALUE = 0x7fffffff;

/**
 * Int32 values at positions 0…n−1 and one question: the last position of a
 * range whose value is below a limit. A tree of minimums answers it in
 * O(log n) however long the run of values at or above the limit it passes
 * over; a scan passes over them one by one.
 */
export class MinTree {
  /** Leaves, a power of two; the leaves are `mins[size + i]`. */
  private readonly size: number;
  /** `mins[1]` is the root; node k has the children 2k and 2k + 1, and holds their minimum. */
  private readonly mins: Int32Array;

  constructor(values: ArrayLike<number>) {
    let size = 1;
    while (size < values.length) size *= 2;
    this.size = size;
    this.mins = new Int32Array(2 * size).fill(NO_VALUE);
    for (let i = 0; i < values.length; i++) this.mins[size + i] = values[i] as number;
    for (let k = size - 1; k >= 1; k--) this.mins[k] = Math.min(this.mins[2 * k] as number, this.mins[2 * k + 1] as number);
  }

  /** The last position in [from, to) whose value is below `limit`, or −1. */
  lastBelow(from: number, to: number, limit: number): number {
    return this.search(1, 0, this.size, from, to, limit);
  }

  private search(node: number, nodeFrom: number, nodeTo: number, from: number, to: number, limit: number): number {
    if (nodeTo <= from || to <= nodeFrom || (this.mins[node] as number) >= limit) return -1;
    if (nodeTo - nodeFrom === 1) return nodeFrom;
    const mid = (nodeFrom + nodeTo) >>> 1;
    const right = this.search(2 * node + 1, mid, nodeTo, from, to, limit);
    return right !== -1 ? right : this.search(2 * node, nodeFrom, mid, from, to, limit);
  }
}
