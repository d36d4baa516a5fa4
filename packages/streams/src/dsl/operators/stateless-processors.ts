/**
 * The record-at-a-time operators of KStream (filter, map, mapValues, flatMap, flatMapValues,
 * selectKey, peek, foreach, merge): each is one function from an input record to the records it
 * forwards. User functions see (key, value) in Kafka's order; null keys and tombstone values
 * reach them as null, as in Kafka Streams.
 */
import type { Processor, ProcessorContext, ProcessorSupplier } from '../../api/processor.js'
import type { StreamRecord } from '../../api/record.js'
import type { KeyValue } from '../../state/store-types.js'

type AnySupplier = ProcessorSupplier<unknown, unknown, unknown, unknown>
type AnyRecord = StreamRecord<unknown, unknown>

/** A processor whose whole work is `step(record, forward)`. */
export function recordStep(step: (record: AnyRecord, forward: (out: AnyRecord) => void) => void): AnySupplier {
  return () => {
    let context: ProcessorContext<unknown, unknown> | undefined
    const forward = (out: AnyRecord): void => context?.forward(out)
    const processor: Processor<unknown, unknown, unknown, unknown> = {
      init(c) {
        context = c
      },
      process(record) {
        step(record, forward)
      },
    }
    return processor
  }
}

export function filterSupplier<K, V>(predicate: (key: K, value: V) => boolean, keepWhen: boolean): AnySupplier {
  return recordStep((r, forward) => {
    if (predicate(r.key as K, r.value as V) === keepWhen) forward(r)
  })
}

export function mapSupplier<K, V, K2, V2>(mapper: (key: K, value: V) => KeyValue<K2, V2>): AnySupplier {
  return recordStep((r, forward) => {
    const out = mapper(r.key as K, r.value as V)
    forward({ ...r, key: out.key, value: out.value })
  })
}

export function mapValuesSupplier<K, V, V2>(mapper: (value: V, key: K) => V2): AnySupplier {
  return recordStep((r, forward) => forward({ ...r, value: mapper(r.value as V, r.key as K) }))
}

export function flatMapSupplier<K, V, K2, V2>(mapper: (key: K, value: V) => Iterable<KeyValue<K2, V2>>): AnySupplier {
  return recordStep((r, forward) => {
    for (const out of mapper(r.key as K, r.value as V)) forward({ ...r, key: out.key, value: out.value })
  })
}

export function flatMapValuesSupplier<K, V, V2>(mapper: (value: V, key: K) => Iterable<V2>): AnySupplier {
  return recordStep((r, forward) => {
    for (const value of mapper(r.value as V, r.key as K)) forward({ ...r, value })
  })
}

export function selectKeySupplier<K, V, K2>(selector: (key: K, value: V) => K2): AnySupplier {
  return recordStep((r, forward) => forward({ ...r, key: selector(r.key as K, r.value as V) }))
}

/** peek and foreach: the action runs, the record passes on unchanged (foreach has no children). */
export function peekSupplier<K, V>(action: (key: K, value: V) => void): AnySupplier {
  return recordStep((r, forward) => {
    action(r.key as K, r.value as V)
    forward(r)
  })
}

/** merge, toStream: records pass through (the node exists so describe() shows the operator). */
export function passThroughSupplier(): AnySupplier {
  return recordStep((r, forward) => forward(r))
}
