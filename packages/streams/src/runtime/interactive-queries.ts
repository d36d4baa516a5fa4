/**
 * Interactive queries: reading an application's key-value stores from the application itself,
 * as Kafka Streams' `KafkaStreams.store()` and `queryMetadataForKey()` do.
 *
 * - `keyValueStore(name)` is a read-only view over the store of that name in every task this
 *   instance runs as active and has restored. A key lives in one task (its input partition), so
 *   `get` asks each in turn; `range` and `all` go task by task, each in key-bytes order (as
 *   Kafka's composite store does: there is no global order across partitions).
 * - `metadataForKey(name, key, keySerde)` says which instance hosts the key: the partition is the
 *   producer's default partitioner (murmur2 of the key bytes over the source topic's partition
 *   count, as a Kafka client puts it), and the owner comes from the endpoint map every member
 *   receives with its assignment (`applicationServer` in each member's userData).
 *
 * A view reads whatever the tasks hold when it is called: after a rebalance moves a task away,
 * its keys are answered by the new owner (ask metadataForKey again).
 */
import { partitionForKey, type TopicPartition } from '@sluice/client'
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import type { ReadOnlyKeyValueStore, StateStore } from '../state/store-types.js'
import type { ActiveTask } from './active-task.js'
import type { TopologyPlan } from './task-contract.js'

/** Where a key of a store is hosted. */
export interface KeyQueryMetadata {
  /** The input partition the key belongs to (of the store's sub-topology's first source topic). */
  readonly topic: string
  readonly partition: number
  /** `host:port` of the instance whose active task holds it; undefined while nobody announces one. */
  readonly endpoint: string | undefined
  /** True when this instance holds it now (its get() answers for the key). */
  readonly local: boolean
}

export interface InteractiveQueriesDeps {
  readonly plan: TopologyPlan
  /** The tasks this instance runs as active now. */
  readonly tasks: () => readonly ActiveTask[]
  readonly partitionCount: (topic: string) => number | undefined
}

export class InteractiveQueries {
  private partitionsByEndpoint: ReadonlyMap<string, readonly TopicPartition[]> = new Map()

  constructor(private readonly deps: InteractiveQueriesDeps) {}

  /** The endpoint map of the latest assignment (every member gets the whole map). */
  onAssignment(partitionsByEndpoint: ReadonlyMap<string, readonly TopicPartition[]>): void {
    this.partitionsByEndpoint = partitionsByEndpoint
  }

  keyValueStore<K, V>(name: string): ReadOnlyKeyValueStore<K, V> {
    this.sourceTopicOf(name)
    const stores = (): ReadOnlyKeyValueStore<K, V>[] =>
      this.deps
        .tasks()
        .filter((t) => t.restored)
        .flatMap((t) => {
          const s = t.task.stores.get(name)
          return s === undefined ? [] : [s as StateStore & ReadOnlyKeyValueStore<K, V>]
        })
    return {
      get: (key) => {
        for (const s of stores()) {
          const v = s.get(key)
          if (v !== undefined) return v
        }
        return undefined
      },
      range: (from, to) => concat(stores().map((s) => s.range(from, to))),
      all: () => concat(stores().map((s) => s.all())),
      approximateNumEntries: () => stores().reduce((n, s) => n + s.approximateNumEntries(), 0),
    }
  }

  metadataForKey<K>(name: string, key: K, keySerde: Serde<K>): KeyQueryMetadata {
    const topic = this.sourceTopicOf(name)
    const count = this.deps.partitionCount(topic)
    if (count === undefined) {
      throw new StreamsError(
        'QUERY',
        `store ${name}: the partition count of ${topic} is not known yet (start() first)`,
        {
          details: { store: name, topic },
        },
      )
    }
    const partition = partitionForKey(keySerde.serialize(key, topic), count)
    let endpoint: string | undefined
    for (const [e, tps] of this.partitionsByEndpoint)
      if (tps.some((tp) => tp.topic === topic && tp.partition === partition)) endpoint = e
    const local = this.deps
      .tasks()
      .some((t) => t.restored && t.partitions.some((tp) => tp.topic === topic && tp.partition === partition))
    return { topic, partition, endpoint, local }
  }

  /** The first source topic of the sub-topology holding key-value store `name` (its partitions name the tasks). */
  private sourceTopicOf(name: string): string {
    for (const sub of this.deps.plan.subtopologies) {
      const spec = sub.stores.find((s) => s.name === name)
      if (spec === undefined) continue
      if (spec.kind !== 'key-value') {
        throw new StreamsError(
          'QUERY',
          `store ${name} is a ${spec.kind} store; only key-value stores are queryable yet`,
          {
            details: { store: name, kind: spec.kind },
          },
        )
      }
      return sub.sourceTopics[0]!
    }
    throw new StreamsError('QUERY', `the topology has no store named ${name}`, { details: { store: name } })
  }
}

function* concat<T>(its: readonly IterableIterator<T>[]): IterableIterator<T> {
  for (const it of its) yield* it
}
