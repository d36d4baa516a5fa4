/**
 * Interactive queries: reading an application's key-value stores from the application itself,
 * as Kafka Streams' `KafkaStreams.store()` and `queryMetadataForKey()` do.
 *
 * - `keyValueStore(name)` is a read-only view over the store of that name in every task this
 *   instance runs as active and has restored. A key lives in one task (its input partition), so
 *   `get` asks each in turn; `range` and `all` go task by task, each in key-bytes order (as
 *   Kafka's composite store does: there is no global order across partitions).
 * - `windowStore(name)` and `sessionStore(name)` do the same for window and session stores:
 *   a key's windows or sessions are in the one task of its partition, so each lookup asks the
 *   tasks in turn and the scans go task by task.
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
import type {
  ReadOnlyKeyValueStore,
  ReadOnlySessionStore,
  ReadOnlyWindowStore,
  StateStore,
} from '../state/store-types.js'
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
    this.sourceTopicOf(name, 'key-value')
    const stores = () => this.storesNamed<ReadOnlyKeyValueStore<K, V>>(name)
    return {
      get: (key) => firstDefined(stores(), (s) => s.get(key)),
      range: (from, to) => concat(stores().map((s) => s.range(from, to))),
      all: () => concat(stores().map((s) => s.all())),
      approximateNumEntries: () => stores().reduce((n, s) => n + s.approximateNumEntries(), 0),
    }
  }

  windowStore<K, V>(name: string): ReadOnlyWindowStore<K, V> {
    this.sourceTopicOf(name, 'window')
    const stores = () => this.storesNamed<ReadOnlyWindowStore<K, V>>(name)
    return {
      fetch: (key, windowStart) => firstDefined(stores(), (s) => s.fetch(key, windowStart)),
      fetchRange: (key, from, to) => concat(stores().map((s) => s.fetchRange(key, from, to))),
      fetchAll: (from, to) => concat(stores().map((s) => s.fetchAll(from, to))),
      all: () => concat(stores().map((s) => s.all())),
    }
  }

  sessionStore<K, V>(name: string): ReadOnlySessionStore<K, V> {
    this.sourceTopicOf(name, 'session')
    const stores = () => this.storesNamed<ReadOnlySessionStore<K, V>>(name)
    return {
      findSessions: (key, earliestEnd, latestStart) =>
        concat(stores().map((s) => s.findSessions(key, earliestEnd, latestStart))),
      fetch: (key) => concat(stores().map((s) => s.fetch(key))),
      all: () => concat(stores().flatMap((s) => (s.all === undefined ? [] : [s.all()]))),
    }
  }

  /** Store `name` of every task this instance runs as active and has restored. */
  private storesNamed<S>(name: string): S[] {
    return this.deps
      .tasks()
      .filter((t) => t.restored)
      .flatMap((t) => {
        const s = t.task.stores.get(name)
        return s === undefined ? [] : [s as StateStore & S]
      })
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

  /**
   * The first source topic of the sub-topology holding store `name` (its partitions name the
   * tasks); with `kind`, the store must be of that kind (a window store is not read as a
   * key-value one).
   */
  private sourceTopicOf(name: string, kind?: string): string {
    for (const sub of this.deps.plan.subtopologies) {
      const spec = sub.stores.find((s) => s.name === name)
      if (spec === undefined) continue
      if (kind !== undefined && spec.kind !== kind) {
        throw new StreamsError('QUERY', `store ${name} is a ${spec.kind} store, not a ${kind} store`, {
          details: { store: name, kind: spec.kind },
        })
      }
      return sub.sourceTopics[0]!
    }
    throw new StreamsError('QUERY', `the topology has no store named ${name}`, { details: { store: name } })
  }
}

function firstDefined<S, V>(stores: readonly S[], read: (s: S) => V | undefined): V | undefined {
  for (const s of stores) {
    const v = read(s)
    if (v !== undefined) return v
  }
  return undefined
}

function* concat<T>(its: readonly IterableIterator<T>[]): IterableIterator<T> {
  for (const it of its) yield* it
}
