/**
 * `topology.describe()`: the sub-topologies with their sources, processors, stores and sinks,
 * as data and as text (the shape of Kafka's TopologyDescription). Repartition topics are
 * written `<name>-repartition`, without an application id, since a topology has none yet.
 */
import type { StoreKind } from '../state/store-types.js'
import type { NodeDef } from './node-defs.js'
import type { Subtopology } from './subtopology-split.js'
import { describeTopic } from './topic-ref.js'
import type { GlobalStoreDef } from './topology-graph.js'

export interface SourceDescription {
  readonly type: 'source'
  readonly name: string
  readonly topics: readonly string[]
  readonly successors: readonly string[]
}

export interface ProcessorDescription {
  readonly type: 'processor'
  readonly name: string
  readonly stores: readonly string[]
  readonly predecessors: readonly string[]
  readonly successors: readonly string[]
}

export interface SinkDescription {
  readonly type: 'sink'
  readonly name: string
  /** The topic, or '(a function of the record)' for to() with a topic extractor. */
  readonly topic: string
  readonly predecessors: readonly string[]
}

export type NodeDescription = SourceDescription | ProcessorDescription | SinkDescription

export interface StoreDescription {
  readonly name: string
  readonly kind: StoreKind
  readonly persistent: boolean
  readonly logging: boolean
  readonly caching: boolean
}

export interface SubtopologyDescription {
  readonly id: number
  readonly nodes: readonly NodeDescription[]
  readonly stores: readonly StoreDescription[]
}

export interface GlobalStoreDescription {
  readonly topic: string
  readonly store: string
}

export interface TopologyDescription {
  readonly subtopologies: readonly SubtopologyDescription[]
  readonly globalStores: readonly GlobalStoreDescription[]
  /** The same, as indented text. */
  toString(): string
}

export function describeTopology(
  subtopologies: readonly Subtopology[],
  stores: ReadonlyMap<string, StoreDescription>,
  globalStores: readonly GlobalStoreDef[],
): TopologyDescription {
  const data = {
    subtopologies: subtopologies.map((s) => describeSubtopology(s, stores)),
    globalStores: globalStores.map((g) => ({ topic: g.topic, store: g.storeBuilder.name })),
  }
  return { ...data, toString: () => render(data.subtopologies, data.globalStores) }
}

function describeSubtopology(s: Subtopology, stores: ReadonlyMap<string, StoreDescription>): SubtopologyDescription {
  const children = new Map<string, string[]>()
  for (const node of s.nodes) {
    if (node.type === 'source') continue
    for (const p of node.parents) {
      const list = children.get(p) ?? []
      list.push(node.name)
      children.set(p, list)
    }
  }
  const nodes = s.nodes.map((node: NodeDef): NodeDescription => {
    const successors = children.get(node.name) ?? []
    if (node.type === 'source') {
      return { type: 'source', name: node.name, topics: node.topics.map(describeTopic), successors }
    }
    if (node.type === 'processor') {
      return { type: 'processor', name: node.name, stores: node.stores, predecessors: node.parents, successors }
    }
    const topic = typeof node.topic === 'function' ? '(a function of the record)' : describeTopic(node.topic)
    return { type: 'sink', name: node.name, topic, predecessors: node.parents }
  })
  return { id: s.id, nodes, stores: s.stores.map((name) => stores.get(name) as StoreDescription) }
}

function render(subtopologies: readonly SubtopologyDescription[], globalStores: readonly GlobalStoreDescription[]) {
  const lines = ['Topologies:']
  for (const s of subtopologies) {
    lines.push(`   Sub-topology: ${s.id}`)
    for (const node of s.nodes) {
      if (node.type === 'source') lines.push(`    Source: ${node.name} (topics: [${node.topics.join(', ')}])`)
      else if (node.type === 'processor')
        lines.push(`    Processor: ${node.name} (stores: [${node.stores.join(', ')}])`)
      else lines.push(`    Sink: ${node.name} (topic: ${node.topic})`)
      if (node.type !== 'sink')
        lines.push(`      --> ${node.successors.length > 0 ? node.successors.join(', ') : 'none'}`)
      if (node.type !== 'source') lines.push(`      <-- ${node.predecessors.join(', ')}`)
    }
    for (const store of s.stores) {
      const traits = [store.kind, store.persistent ? 'persistent' : 'in-memory']
      if (store.logging) traits.push('logged')
      if (store.caching) traits.push('cached')
      lines.push(`    Store: ${store.name} (${traits.join(', ')})`)
    }
  }
  for (const g of globalStores) lines.push(`   Global store: ${g.store} (topic: ${g.topic})`)
  return `${lines.join('\n')}\n`
}
