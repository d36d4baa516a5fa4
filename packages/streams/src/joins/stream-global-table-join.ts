/**
 * The stream–globalTable join (inner and left). A global table is read whole by every instance,
 * so the stream need not be co-partitioned with it and may join on anything it carries: the
 * key selector computes the global table's key from the stream record's key and value. The
 * result keeps the stream record's key, timestamp and headers.
 *
 * - A stream record without a value is dropped and counted.
 * - The selector returns null (or undefined), or the table has no row for the key: an inner
 *   join drops the record, a left join emits it with a null table value. A stream record
 *   without a key is fine: the selector decides.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../api/processor.js'
import type { StreamRecord } from '../api/record.js'
import type { KeyValueStore } from '../state/store-types.js'
import { countInvalid } from './join-metrics.js'

/** Computes the global table's key for a stream record. */
export type GlobalKeySelector<K, V, GK> = (key: K | null, value: V) => GK | null | undefined

/** The result from the stream value and the global row (null when a left join found none). */
export type GlobalValueJoiner<K, V, GV, VR> = (value: V, globalValue: GV | null, key: K | null) => VR

export interface StreamGlobalTableJoinOptions<K, V, GK, GV, VR> {
  readonly kind: 'inner' | 'left'
  /** The global table's store (GlobalStorePlan.store.name). */
  readonly globalStore: string
  readonly keySelector: GlobalKeySelector<K, V, GK>
  readonly joiner: GlobalValueJoiner<K, V, GV, VR>
}

export function streamGlobalTableJoin<K, V, GK, GV, VR>(
  options: StreamGlobalTableJoinOptions<K, V, GK, GV, VR>,
): ProcessorSupplier<K, V, K, VR> {
  return () => new StreamGlobalTableJoinProcessor(options)
}

class StreamGlobalTableJoinProcessor<K, V, GK, GV, VR> implements Processor<K, V, K, VR> {
  private context!: ProcessorContext<K, VR>
  private table: KeyValueStore<GK, GV> | undefined

  constructor(private readonly options: StreamGlobalTableJoinOptions<K, V, GK, GV, VR>) {}

  init(context: ProcessorContext<K, VR>): void {
    this.context = context
  }

  process(record: StreamRecord<K, V>): void {
    const { key, value } = record
    if (value === null) {
      countInvalid(this.context)
      return
    }
    // Looked up on first use, not in init(): the instance may open its global stores after its tasks.
    this.table ??= this.context.getStateStore<KeyValueStore<GK, GV>>(this.options.globalStore)
    const globalKey = this.options.keySelector(key, value)
    const row = globalKey === null || globalKey === undefined ? undefined : this.table.get(globalKey)
    if (row === undefined && this.options.kind === 'inner') return
    this.context.forward({ ...record, value: this.options.joiner(value, row ?? null, key) })
  }
}
