/**
 * How KTable's join, leftJoin and outerJoin wire the table–table join (src/joins/) into the
 * topology graph. The join keeps each side's rows, with their timestamps, in a store of its
 * own named from the user's name (`<name>-this-join-store`, `<name>-other-join-store`): it
 * needs the row an update replaces to know whether a result disappeared. One processor follows
 * each table (fed by its updates), and a pass-through node after both is the joined table.
 */
import type { Serde } from '../api/serde.js'
import type { JoinKind, NullableValueJoiner } from '../joins/join-types.js'
import { OTHER_JOIN_STORE_SUFFIX, THIS_JOIN_STORE_SUFFIX } from '../joins/stream-joined.js'
import { tableTableJoin } from '../joins/table-table-join.js'
import { timestampedValueSerde } from '../joins/timestamped-value.js'
import type { StateStore, StoreBuilder } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import { requireName } from '../topology/topology-graph.js'
import type { Dsl, KTable } from './dsl-types.js'
import { requireSerde } from './materialize.js'
import { addTwoSidedJoin } from './two-sided-join.js'
import type { MaterializedOptions } from './options.js'

/** What ktable-joins needs of each side (KTableImpl has these). */
export interface JoinableTable<K, V> {
  readonly nodeName: string
  readonly keySerde: Serde<K> | undefined
  readonly valueSerde: Serde<V> | undefined
}

export function ktableJoin<K>(
  dsl: Dsl,
  kind: JoinKind,
  left: JoinableTable<K, unknown>,
  right: JoinableTable<K, unknown>,
  joiner: NullableValueJoiner<unknown, unknown, unknown, unknown>,
  opts: MaterializedOptions,
): KTable<K, unknown> {
  const operator = `KTable.${kind === 'inner' ? 'join' : `${kind}Join`}()`
  const graph = dsl.graph
  const name = requireName(opts?.name, operator, 'a join store name')
  const keySerde = requireSerde(left.keySerde ?? right.keySerde, operator, 'keySerde')
  const storeOpts = { logging: opts.logging ?? true, caching: false }
  const factory = opts.persistent === true ? Stores.persistentKeyValueStore : Stores.inMemoryKeyValueStore
  const leftStore = factory(
    name + THIS_JOIN_STORE_SUFFIX,
    keySerde,
    timestampedValueSerde(requireSerde(left.valueSerde, operator, 'valueSerde')),
    storeOpts,
  )
  const rightStore = factory(
    name + OTHER_JOIN_STORE_SUFFIX,
    keySerde,
    timestampedValueSerde(requireSerde(right.valueSerde, operator, 'valueSerde')),
    storeOpts,
  )
  graph.addStore(leftStore as unknown as StoreBuilder<StateStore>, operator)
  graph.addStore(rightStore as unknown as StoreBuilder<StateStore>, operator)
  const stores = [leftStore.name, rightStore.name]
  const join = tableTableJoin({ kind, leftStore: leftStore.name, rightStore: rightStore.name, joiner })
  const merged = addTwoSidedJoin(graph, 'KTABLE', { left: left.nodeName, right: right.nodeName }, join, stores)
  return dsl.table<K, unknown>(merged, undefined, keySerde, undefined)
}
