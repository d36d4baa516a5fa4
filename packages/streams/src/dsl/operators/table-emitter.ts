/**
 * How a table's updates go downstream. With a write cache, the store's flush listener forwards
 * the newest value of each key when the cache flushes (on commit, or when it is full), so a key
 * updated a thousand times between commits sends one record, as Kafka's cached tables do.
 * Without one, every write is forwarded as it happens.
 */
import type { ProcessorContext } from '../../api/processor.js'
import type { StreamRecord } from '../../api/record.js'
import type { KeyValueStore } from '../../state/store-types.js'

export type TableEmit = (input: StreamRecord<unknown, unknown>, key: unknown, value: unknown | null) => void

export function tableEmitter(
  store: KeyValueStore<unknown, unknown>,
  context: ProcessorContext<unknown, unknown>,
): TableEmit {
  const cached =
    store.setFlushListener?.((entries) => {
      for (const e of entries) context.forward({ key: e.key, value: e.newValue, timestamp: e.timestamp, headers: [] })
    }) ?? false
  if (cached) return () => {}
  return (input, key, value) => context.forward({ key, value, timestamp: input.timestamp, headers: input.headers })
}
