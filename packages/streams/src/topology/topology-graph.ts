/**
 * The graph a StreamsBuilder records as the DSL is called: nodes, the stores they use, the
 * repartition names and the global stores. It enforces the naming rules as each name is given
 * (a missing or duplicate store or repartition name is StreamsError 'TOPOLOGY' naming the
 * operator), so the error points at the call that is wrong; what can only be checked on the
 * whole graph (a processor asking for a store nobody added) is checked in `check()`, which
 * StreamsBuilder.build() runs.
 *
 * Processor names are generated (`KSTREAM-FILTER-0000000003`, as Kafka's) and appear only in
 * describe(): no topic or store is named after them, so adding an operator renames nothing
 * durable (docs/streams.md §2).
 */
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import type { StateStore, StoreBuilder } from '../state/store-types.js'
import type { NodeDef, ProcessorNodeDef, SinkNodeDef, SourceNodeDef } from './node-defs.js'
import type { TopicRef } from './topic-ref.js'

/** A globalTable: its source topic, the store it fills and the serdes of both. */
export interface GlobalStoreDef {
  readonly topic: string
  readonly storeBuilder: StoreBuilder<StateStore>
  readonly keySerde: Serde<unknown>
  readonly valueSerde: Serde<unknown>
}

/** Names may appear in topic names and directories: the characters Kafka allows in a topic name. */
const NAME = /^[A-Za-z0-9._-]{1,200}$/

export class TopologyGraph {
  readonly nodes = new Map<string, NodeDef>()
  readonly stores = new Map<string, StoreBuilder<StateStore>>()
  /** Repartition name -> the operator that declared it and the partition count it asked for. */
  readonly repartitions = new Map<string, { readonly operator: string; readonly partitions?: number }>()
  readonly globalStores: GlobalStoreDef[] = []
  /** Topic key ('user:x' or 'repartition:x') -> the source node reading it. */
  private readonly readers = new Map<string, string>()
  private readonly storeOperators = new Map<string, string>()
  private counter = 0

  /** A fresh processor name: `<KIND>-<10-digit index>`, as Kafka writes them. */
  nextName(kind: string): string {
    return `${kind}-${String(this.counter++).padStart(10, '0')}`
  }

  addSource(def: SourceNodeDef): void {
    if (def.topics.length === 0) throw new StreamsError('TOPOLOGY', `${def.name}: a source needs at least one topic`)
    for (const topic of def.topics) {
      if (topic.kind === 'user') checkTopicName(topic.name, def.name)
      const key = `${topic.kind}:${topic.name}`
      const other = this.readers.get(key) ?? (topic.kind === 'user' ? this.globalReader(topic.name) : undefined)
      if (other !== undefined) {
        throw new StreamsError(
          'TOPOLOGY',
          `${def.name}: topic '${topic.name}' is already read by ${other}; read it once and share the stream`,
          { details: { operator: def.name, topic: topic.name } },
        )
      }
      this.readers.set(key, def.name)
    }
    this.addNode(def)
  }

  addProcessor(def: ProcessorNodeDef): void {
    this.checkParents(def.name, def.parents)
    this.addNode(def)
  }

  addSink(def: SinkNodeDef): void {
    this.checkParents(def.name, def.parents)
    if (typeof def.topic !== 'function' && def.topic.kind === 'user') checkTopicName(def.topic.name, def.name)
    this.addNode(def)
  }

  private addNode(def: NodeDef): void {
    if (this.nodes.has(def.name)) {
      throw new StreamsError('TOPOLOGY', `processor name '${def.name}' is used twice`, {
        details: { operator: def.name },
      })
    }
    this.nodes.set(def.name, def)
  }

  /** Registers a store under its user-given name; `operator` is named in the error if the name is taken. */
  addStore(builder: StoreBuilder<StateStore>, operator: string): void {
    const name = requireName(builder?.name, operator, 'a state store name')
    const other = this.storeOperators.get(name)
    if (other !== undefined) {
      throw new StreamsError('TOPOLOGY', `${operator}: state store name '${name}' is already used by ${other}`, {
        details: { operator, store: name },
      })
    }
    this.storeOperators.set(name, operator)
    this.stores.set(name, builder)
  }

  /** Reserves a repartition topic name (the topic is `<application>-<name>-repartition`). */
  addRepartition(name: string | undefined, operator: string, partitions?: number): TopicRef {
    const checked = requireName(name, operator, 'a repartition topic name')
    const other = this.repartitions.get(checked)
    if (other !== undefined) {
      throw new StreamsError(
        'TOPOLOGY',
        `${operator}: repartition name '${checked}' is already used by ${other.operator}`,
        {
          details: { operator, repartition: checked },
        },
      )
    }
    if (partitions !== undefined && (!Number.isSafeInteger(partitions) || partitions < 1)) {
      throw new StreamsError('CONFIG', `${operator}: partitions must be a positive integer, got ${partitions}`)
    }
    this.repartitions.set(checked, { operator, partitions })
    return { kind: 'repartition', name: checked }
  }

  addGlobalStore(def: GlobalStoreDef, operator: string): void {
    checkTopicName(def.topic, operator)
    const reader = this.readers.get(`user:${def.topic}`) ?? this.globalReader(def.topic)
    if (reader !== undefined) {
      throw new StreamsError('TOPOLOGY', `${operator}: topic '${def.topic}' is already read by ${reader}`, {
        details: { operator, topic: def.topic },
      })
    }
    this.addStore(def.storeBuilder, operator)
    this.globalStores.push(def)
  }

  /** Whole-graph checks: every store a processor names exists and is not a global store. */
  check(): void {
    if (this.nodes.size === 0 && this.globalStores.length === 0) {
      throw new StreamsError('TOPOLOGY', 'the topology is empty: add a stream, a table or a global table')
    }
    const global = new Set(this.globalStores.map((g) => g.storeBuilder.name))
    for (const node of this.nodes.values()) {
      if (node.type !== 'processor') continue
      for (const store of node.globalStores ?? []) {
        if (!global.has(store)) {
          throw new StreamsError('TOPOLOGY', `${node.name}: '${store}' is not the store of a global table`, {
            details: { operator: node.name, store },
          })
        }
      }
      for (const store of node.stores) {
        if (!this.stores.has(store)) {
          throw new StreamsError('TOPOLOGY', `${node.name}: state store '${store}' was never added (addStateStore)`, {
            details: { operator: node.name, store },
          })
        }
        if (global.has(store)) {
          throw new StreamsError(
            'TOPOLOGY',
            `${node.name}: '${store}' is a global store; read it through its global table, not as a task store`,
            { details: { operator: node.name, store } },
          )
        }
      }
    }
  }

  private globalReader(topic: string): string | undefined {
    const g = this.globalStores.find((s) => s.topic === topic)
    return g === undefined ? undefined : `global table '${g.storeBuilder.name}'`
  }

  private checkParents(name: string, parents: readonly string[]): void {
    for (const parent of parents) {
      const node = this.nodes.get(parent)
      if (node === undefined) throw new StreamsError('TOPOLOGY', `${name}: unknown parent node '${parent}'`)
      if (node.type === 'sink') throw new StreamsError('TOPOLOGY', `${name}: a sink (${parent}) has no children`)
    }
  }
}

/** Throws StreamsError 'TOPOLOGY' naming `operator` unless `name` is a usable name. */
export function requireName(name: string | undefined, operator: string, what: string): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new StreamsError('TOPOLOGY', `${operator} needs ${what} ({ name }): names are never generated`, {
      details: { operator },
    })
  }
  if (!NAME.test(name) || name === '.' || name === '..') {
    throw new StreamsError('TOPOLOGY', `${operator}: ${what} '${name}' must be 1-200 characters of [A-Za-z0-9._-]`, {
      details: { operator, name },
    })
  }
  return name
}

function checkTopicName(topic: string, operator: string): void {
  if (typeof topic !== 'string' || !NAME.test(topic) || topic === '.' || topic === '..') {
    throw new StreamsError('TOPOLOGY', `${operator}: '${String(topic)}' is not a valid topic name`, {
      details: { operator, topic },
    })
  }
}
