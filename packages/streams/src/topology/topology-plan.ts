/**
 * `topology.plan(applicationId)`: the topology with its internal topic names resolved for one
 * application, in the shape the runtime runs (runtime/task-contract.ts).
 *
 * - Repartition topics are `<app>-<name>-repartition`; without a user-given partition count
 *   they take the partition count of the sub-topology that writes them (`partitionsLike`).
 * - Changelogs are `<app>-<store>-changelog` for every logged store, compacted (window and
 *   session stores: compact,delete with the store's retention), with the partition count of the
 *   store's sub-topology, since task partition p writes changelog partition p.
 * - Copartition groups: the source topics that reach one store must have the same partition
 *   count, or one key would be counted in two tasks.
 */
import { StreamsError } from '../errors.js'
import type {
  GlobalStorePlan,
  InternalTopicPlan,
  StreamTask,
  SubtopologyPlan,
  TopologyPlan,
} from '../runtime/task-contract.js'
import { type StateStore, type StoreBuilder, type StoreSpec, changelogTopic } from '../state/store-types.js'
import type { NodeDef } from './node-defs.js'
import { TopologyStreamTask } from './stream-task.js'
import type { Subtopology } from './subtopology-split.js'
import { resolveTopic } from './topic-ref.js'
import type { GlobalStoreDef } from './topology-graph.js'

export interface BuiltTopology {
  readonly subtopologies: readonly Subtopology[]
  readonly stores: ReadonlyMap<string, StoreBuilder<StateStore>>
  readonly globalStores: readonly GlobalStoreDef[]
  readonly repartitions: ReadonlyMap<string, { readonly operator: string; readonly partitions?: number }>
}

const APPLICATION_ID = /^[A-Za-z0-9._-]{1,200}$/

export function planTopology(topology: BuiltTopology, applicationId: string): TopologyPlan {
  if (typeof applicationId !== 'string' || !APPLICATION_ID.test(applicationId)) {
    throw new StreamsError(
      'CONFIG',
      `application id '${String(applicationId)}' must be 1-200 characters of [A-Za-z0-9._-]`,
    )
  }
  const app = applicationId
  const specOf = (name: string): StoreSpec => storeSpec(topology.stores.get(name) as StoreBuilder<StateStore>)
  const subtopologies: SubtopologyPlan[] = topology.subtopologies.map((s) => ({
    id: s.id,
    sourceTopics: unique(
      s.nodes.flatMap((n) => (n.type === 'source' ? n.topics.map((t) => resolveTopic(t, app)) : [])),
    ),
    sinkTopics: unique(
      s.nodes.flatMap((n) => (n.type === 'sink' && typeof n.topic !== 'function' ? [resolveTopic(n.topic, app)] : [])),
    ),
    stores: s.stores.map(specOf),
    copartitionGroups: copartitionGroups(s, app),
  }))

  const internalTopics: InternalTopicPlan[] = []
  for (const [name, { partitions }] of topology.repartitions) {
    const writer = topology.subtopologies.find((s) =>
      s.nodes.some(
        (n) =>
          n.type === 'sink' && typeof n.topic !== 'function' && n.topic.kind === 'repartition' && n.topic.name === name,
      ),
    )
    internalTopics.push({
      name: resolveTopic({ kind: 'repartition', name }, app),
      kind: 'repartition',
      ...(partitions !== undefined ? { partitions } : { partitionsLike: writer?.id }),
      configs: { 'cleanup.policy': 'delete' },
    })
  }
  for (const s of topology.subtopologies) {
    for (const name of s.stores) {
      const spec = specOf(name)
      if (!spec.logging) continue
      const windowed = spec.kind !== 'key-value'
      internalTopics.push({
        name: changelogTopic(app, name),
        kind: 'changelog',
        partitionsLike: s.id,
        configs: windowed
          ? { 'cleanup.policy': 'compact,delete', 'retention.ms': String(spec.retentionMs ?? -1) }
          : { 'cleanup.policy': 'compact' },
      })
    }
  }
  const globalStores: GlobalStorePlan[] = topology.globalStores.map((g) => ({
    topic: g.topic,
    store: storeSpec(g.storeBuilder),
  }))

  return {
    applicationId: app,
    subtopologies,
    internalTopics,
    globalStores,
    createTask(id, deps): StreamTask {
      const sub = topology.subtopologies.find((s) => s.id === id.subtopology)
      if (sub === undefined) throw new StreamsError('TASK', `no sub-topology ${id.subtopology} in this topology`)
      if (deps.applicationId !== app) {
        throw new StreamsError('TASK', `task deps are for application '${deps.applicationId}', the plan for '${app}'`)
      }
      return new TopologyStreamTask(id, sub, topology.stores, deps)
    },
    createGlobalStore(topic): StateStore {
      const g = topology.globalStores.find((s) => s.topic === topic)
      if (g === undefined) throw new StreamsError('TOPOLOGY', `topic '${topic}' has no global table`)
      return g.storeBuilder.build()
    },
  }
}

function storeSpec(b: StoreBuilder<StateStore>): StoreSpec {
  return {
    name: b.name,
    kind: b.kind,
    persistent: b.persistent,
    logging: b.logging,
    caching: b.caching,
    ...(b.retentionMs !== undefined ? { retentionMs: b.retentionMs } : {}),
  }
}

/** Per store, the source topics upstream of its processors; groups that share a topic are merged. */
function copartitionGroups(s: Subtopology, app: string): string[][] {
  const byName = new Map<string, NodeDef>(s.nodes.map((n) => [n.name, n]))
  const upstream = (name: string, seen: Set<string>, topics: Set<string>): void => {
    if (seen.has(name)) return
    seen.add(name)
    const node = byName.get(name)
    if (node === undefined) return
    if (node.type === 'source') for (const t of node.topics) topics.add(resolveTopic(t, app))
    else for (const p of node.parents) upstream(p, seen, topics)
  }
  let groups: Set<string>[] = []
  for (const store of s.stores) {
    const topics = new Set<string>()
    for (const node of s.nodes) {
      if (node.type === 'processor' && node.stores.includes(store)) upstream(node.name, new Set(), topics)
    }
    if (topics.size < 2) continue
    const overlapping = groups.filter((g) => [...topics].some((t) => g.has(t)))
    for (const g of overlapping) for (const t of g) topics.add(t)
    groups = [...groups.filter((g) => !overlapping.includes(g)), topics]
  }
  return groups.map((g) => [...g].sort())
}

function unique(list: string[]): string[] {
  return [...new Set(list)]
}
