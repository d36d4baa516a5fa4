/**
 * The table–table join (inner, left, outer): a KTable whose row for a key is the join of both
 * tables' rows for that key. Each side is a processor fed by its table's changelog records; it
 * writes the record into its side's store (so both tables are materialized, each in the store
 * named here, with the writing record's timestamp: timestamped-value.ts), then recomputes the
 * join for the key from the row it replaced and the other side's row:
 *
 * - the key has a result now (inner: both rows; left: a left row; outer: either row): the new
 *   result is forwarded, with the later timestamp of the two rows;
 * - it had one before and has none now: a tombstone (value null) is forwarded, so the result
 *   table deletes the row;
 * - it had none and has none: nothing is forwarded.
 *
 * A record without a key cannot be a row: dropped and counted. The stores are written only by
 * these processors (the join is what materializes its two input tables).
 */
import type { Processor, ProcessorContext } from '../api/processor.js'
import type { StreamRecord } from '../api/record.js'
import type { KeyValueStore } from '../state/store-types.js'
import { countInvalid } from './join-metrics.js'
import type { JoinKind, JoinSide, NullableValueJoiner, TwoSidedJoinSuppliers } from './join-types.js'
import type { TimestampedValue } from './timestamped-value.js'

export interface TableTableJoinOptions<K, V1, V2, VR> {
  readonly kind: JoinKind
  /** The left table's store: KeyValueStore<K, TimestampedValue<V1>> (timestampedValueSerde). */
  readonly leftStore: string
  /** The right table's store: KeyValueStore<K, TimestampedValue<V2>>. */
  readonly rightStore: string
  readonly joiner: NullableValueJoiner<K, V1, V2, VR>
}

export function tableTableJoin<K, V1, V2, VR>(
  options: TableTableJoinOptions<K, V1, V2, VR>,
): TwoSidedJoinSuppliers<K, V1, V2, VR> {
  const { kind, leftStore, rightStore, joiner } = options
  return {
    left: () =>
      new TableTableJoinProcessor<K, V1, V2, VR>('left', kind, leftStore, rightStore, (v, o, k) => joiner(v, o, k)),
    right: () =>
      new TableTableJoinProcessor<K, V2, V1, VR>('right', kind, rightStore, leftStore, (v, o, k) => joiner(o, v, k)),
  }
}

/** One side: VT is this table's value, VO the other's; `combine` puts them in left/right order. */
class TableTableJoinProcessor<K, VT, VO, VR> implements Processor<K, VT, K, VR> {
  private context!: ProcessorContext<K, VR>
  private thisStore!: KeyValueStore<K, TimestampedValue<VT>>
  private otherStore!: KeyValueStore<K, TimestampedValue<VO>>

  constructor(
    private readonly side: JoinSide,
    private readonly kind: JoinKind,
    private readonly thisStoreName: string,
    private readonly otherStoreName: string,
    private readonly combine: (thisValue: VT | null, otherValue: VO | null, key: K) => VR,
  ) {}

  init(context: ProcessorContext<K, VR>): void {
    this.context = context
    this.thisStore = context.getStateStore(this.thisStoreName)
    this.otherStore = context.getStateStore(this.otherStoreName)
  }

  process(record: StreamRecord<K, VT>): void {
    const { key, value, timestamp } = record
    if (key === null) {
      countInvalid(this.context)
      return
    }
    const before = this.thisStore.get(key)
    if (value === null) this.thisStore.delete(key)
    else this.thisStore.put(key, { value, timestamp })
    const other = this.otherStore.get(key)
    const resultTime = Math.max(timestamp, other?.timestamp ?? timestamp)
    if (this.hasResult(value !== null, other !== undefined)) {
      const result = this.combine(value, other === undefined ? null : other.value, key)
      this.context.forward({ key, value: result, timestamp: resultTime, headers: record.headers })
    } else if (this.hasResult(before !== undefined, other !== undefined)) {
      this.context.forward({ key, value: null, timestamp: resultTime, headers: record.headers })
    }
  }

  /** Whether the key has a join result when this side has a row (or not) and the other side has one (or not). */
  private hasResult(thisRow: boolean, otherRow: boolean): boolean {
    if (this.kind === 'inner') return thisRow && otherRow
    if (this.kind === 'outer') return thisRow || otherRow
    return this.side === 'left' ? thisRow : otherRow
  }
}
