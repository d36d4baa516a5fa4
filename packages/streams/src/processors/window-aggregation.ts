/**
 * What a windowed aggregation computes, independent of the kind of window: count, reduce and
 * aggregate are three ways of filling in the same three functions, so each window processor is
 * written once for all of them.
 */
import { StreamsError } from '../errors.js'

export interface WindowAggregation<K, V, A> {
  /** A name for errors and describe(): 'count', 'reduce' or 'aggregate'. */
  readonly name: string
  /** The aggregate of a window that holds only this record. */
  first(key: K, value: V): A
  /** The aggregate after one more record. */
  add(key: K, value: V, aggregate: A): A
  /**
   * The aggregate of two sessions that a record merges (the older session first). Only
   * session windows need it; absent for an aggregate made without a merger.
   */
  readonly merge?: (key: K, older: A, newer: A) => A
}

/** Counts records: every window starts at 1, and merged sessions add their counts. */
export function countAggregation<K, V>(): WindowAggregation<K, V, number> {
  return {
    name: 'count',
    first: () => 1,
    add: (_key, _value, count) => count + 1,
    merge: (_key, older, newer) => older + newer,
  }
}

/** Combines values with `reducer` (the first value of a window is its aggregate; merged sessions reduce too). */
export function reduceAggregation<K, V>(reducer: (aggregate: V, value: V) => V): WindowAggregation<K, V, V> {
  checkFunction('reduce', 'reducer', reducer)
  return {
    name: 'reduce',
    first: (_key, value) => value,
    add: (_key, value, aggregate) => reducer(aggregate, value),
    merge: (_key, older, newer) => reducer(older, newer),
  }
}

/**
 * Folds values into an aggregate that starts at `initializer()`. Session windows also need
 * `merger` (how two sessions' aggregates combine when a record joins them, as Kafka's Merger).
 */
export function aggregateAggregation<K, V, A>(
  initializer: () => A,
  aggregator: (key: K, value: V, aggregate: A) => A,
  merger?: (key: K, older: A, newer: A) => A,
): WindowAggregation<K, V, A> {
  checkFunction('aggregate', 'initializer', initializer)
  checkFunction('aggregate', 'aggregator', aggregator)
  if (merger !== undefined) checkFunction('aggregate', 'merger', merger)
  return {
    name: 'aggregate',
    first: (key, value) => aggregator(key, value, initializer()),
    add: aggregator,
    merge: merger,
  }
}

function checkFunction(operator: string, what: string, value: unknown): void {
  if (typeof value !== 'function') {
    throw new StreamsError('TOPOLOGY', `${operator}: the ${what} must be a function`, { details: { operator } })
  }
}
