/** Turns MaterializedOptions into a key-value store builder (state/stores.ts) after checking the name. */
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import type { KeyValueStore, StateStore, StoreBuilder } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import { requireName } from '../topology/topology-graph.js'
import type { MaterializedOptions } from './options.js'

export function keyValueStoreBuilder<K, V>(
  opts: MaterializedOptions | undefined,
  operator: string,
  keySerde: Serde<K> | undefined,
  valueSerde: Serde<V> | undefined,
): StoreBuilder<StateStore> {
  const name = requireName(opts?.name, operator, 'a state store name')
  const keys = requireSerde(keySerde, operator, 'keySerde')
  const values = requireSerde(valueSerde, operator, 'valueSerde')
  const storeOpts = { logging: opts?.logging ?? true, caching: opts?.caching ?? true }
  const builder: StoreBuilder<KeyValueStore<K, V>> =
    opts?.persistent === true
      ? Stores.persistentKeyValueStore(name, keys, values, storeOpts)
      : Stores.inMemoryKeyValueStore(name, keys, values, storeOpts)
  return builder as unknown as StoreBuilder<StateStore>
}

/** The serde an operator needs, or StreamsError 'TOPOLOGY' asking for it by name. */
export function requireSerde<T>(
  serde: Serde<T> | undefined,
  operator: string,
  which: 'keySerde' | 'valueSerde',
): Serde<T> {
  if (serde === undefined) {
    throw new StreamsError(
      'TOPOLOGY',
      `${operator} needs a ${which}: the stream no longer knows it (an operator changed its type); pass { ${which} }`,
      { details: { operator } },
    )
  }
  return serde
}
