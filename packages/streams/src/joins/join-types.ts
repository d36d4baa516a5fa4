/**
 * The words every join shares: which variant, which side, and the function that combines a
 * left and a right value into the result.
 */
import type { ProcessorSupplier } from '../api/processor.js'

/** inner: both sides must match; left: every left record or row gives a result; outer: every record or row of either side does. */
export type JoinKind = 'inner' | 'left' | 'outer'

/** left is Kafka's "this" side (the stream or table `join` is called on), right its "other" side. */
export type JoinSide = 'left' | 'right'

/**
 * Makes a join result. The side without a match is `null` (left and outer joins only); `key` is
 * the records' key (`null` only for a left/outer result of a record without a key).
 */
export type ValueJoiner<K, V1, V2, VR> = (left: V1, right: V2, key: K | null) => VR

/**
 * The joiner as the join processors hold it: either side may be null, since a left or outer
 * join calls it with the missing side null. The DSL's typed `join`/`leftJoin`/`outerJoin`
 * narrow it for the user (an inner joiner never sees null).
 */
export type NullableValueJoiner<K, V1, V2, VR> = ValueJoiner<K, V1 | null, V2 | null, VR>

/** Whether a side of a `kind` join produces a result when it has no match. */
export function emitsUnmatched(kind: JoinKind, side: JoinSide): boolean {
  return kind === 'outer' || (kind === 'left' && side === 'left')
}

/** The two processors of a two-sided join (stream–stream, table–table): one fed by each input. */
export interface TwoSidedJoinSuppliers<K, V1, V2, VR> {
  /** The processor fed by the left ("this") input. */
  readonly left: ProcessorSupplier<K, V1, K, VR>
  /** The processor fed by the right ("other") input. */
  readonly right: ProcessorSupplier<K, V2, K, VR>
}
