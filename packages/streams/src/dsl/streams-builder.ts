/**
 * StreamsBuilder: where a streams application describes its topology with the DSL. `build()`
 * checks the whole graph and returns the Topology (topology/topology.ts), which is split into
 * sub-topologies at repartition topics.
 */
import type { Serde } from '../api/serde.js'
import type { StateStore, StoreBuilder } from '../state/store-types.js'
import { Stores } from '../state/stores.js'
import type { TimestampExtractor } from '../topology/node-defs.js'
import { splitSubtopologies } from '../topology/subtopology-split.js'
import { TopologyGraph, requireName } from '../topology/topology-graph.js'
import { Topology } from '../topology/topology.js'
import { BranchedKStreamImpl } from './branched-kstream.js'
import type { Dsl, GlobalKTable, KStream, KTable } from './dsl-types.js'
import { KGroupedStreamImpl } from './kgrouped-stream.js'
import { KStreamImpl } from './kstream.js'
import { KTableImpl } from './ktable.js'
import { keyValueStoreBuilder, requireSerde } from './materialize.js'
import { tableUpdateSupplier, upsert } from './operators/table-processors.js'
import type { ConsumedOptions, GlobalTableOptions, TableOptions } from './options.js'

export class StreamsBuilder {
  private readonly graph = new TopologyGraph()
  private readonly dsl: Dsl = {
    graph: this.graph,
    stream: (state) => new KStreamImpl(this.dsl, state),
    branched: (parent, prefix) => new BranchedKStreamImpl(this.dsl, parent, prefix),
    grouped: (nodeName, keySerde, valueSerde) => new KGroupedStreamImpl(this.dsl, nodeName, keySerde, valueSerde),
    table: (nodeName, storeName, keySerde, valueSerde, windowing) =>
      new KTableImpl(this.dsl, nodeName, storeName, keySerde, valueSerde, windowing),
  }

  /** A stream of the records of one topic or several (read by one source node). */
  stream<K, V>(topics: string | readonly string[], opts: ConsumedOptions<K, V>): KStream<K, V> {
    const name = this.graph.nextName('KSTREAM-SOURCE')
    const list = typeof topics === 'string' ? [topics] : [...topics]
    this.source(name, list, opts)
    return this.dsl.stream<K, V>({
      nodeName: name,
      keySerde: opts.keySerde,
      valueSerde: opts.valueSerde,
      repartitionRequired: false,
    })
  }

  /** The topic read as a table in the store `name` (a null value deletes its key). */
  table<K, V>(topic: string, opts: TableOptions<K, V>): KTable<K, V> {
    const source = this.graph.nextName('KSTREAM-SOURCE')
    this.source(source, [topic], opts)
    const name = this.graph.nextName('KTABLE-SOURCE')
    const store = keyValueStoreBuilder(opts, `table('${topic}')`, opts?.keySerde, opts?.valueSerde)
    this.graph.addStore(store, `table('${topic}')`)
    this.graph.addProcessor({
      type: 'processor',
      name,
      parents: [source],
      supplier: tableUpdateSupplier(upsert, store.name),
      stores: [store.name],
    })
    return this.dsl.table<K, V>(name, store.name, opts.keySerde, opts.valueSerde)
  }

  /** The whole topic (every partition) in a store on every instance. */
  globalTable<K, V>(topic: string, opts: GlobalTableOptions<K, V>): GlobalKTable<K, V> {
    const operator = `globalTable('${topic}')`
    const name = requireName(opts?.name, operator, 'a state store name')
    const keySerde = requireSerde(opts.keySerde, operator, 'keySerde')
    const valueSerde = requireSerde(opts.valueSerde, operator, 'valueSerde')
    // The topic is the store's changelog already, and the runtime writes it in batches: no log, no cache.
    const storeOpts = { logging: false, caching: false }
    const builder =
      opts.persistent === true
        ? Stores.persistentKeyValueStore(name, keySerde, valueSerde, storeOpts)
        : Stores.inMemoryKeyValueStore(name, keySerde, valueSerde, storeOpts)
    this.graph.addGlobalStore(
      {
        topic,
        storeBuilder: builder as unknown as StoreBuilder<StateStore>,
        keySerde: keySerde as Serde<unknown>,
        valueSerde: valueSerde as Serde<unknown>,
      },
      operator,
    )
    return { topic, storeName: name }
  }

  /** A store for processors of the processor API (`stream.process(..., { stores: [name] })`). */
  addStateStore(builder: StoreBuilder<StateStore>): this {
    this.graph.addStore(builder, `addStateStore('${builder?.name}')`)
    return this
  }

  build(): Topology {
    this.graph.check()
    return new Topology({
      subtopologies: splitSubtopologies(this.graph.nodes),
      stores: new Map(this.graph.stores),
      globalStores: [...this.graph.globalStores],
      repartitions: new Map(this.graph.repartitions),
    })
  }

  private source<K, V>(name: string, topics: string[], opts: ConsumedOptions<K, V>): void {
    this.graph.addSource({
      type: 'source',
      name,
      topics: topics.map((t) => ({ kind: 'user', name: t })),
      keySerde: requireSerde(opts?.keySerde, name, 'keySerde') as Serde<unknown>,
      valueSerde: requireSerde(opts?.valueSerde, name, 'valueSerde') as Serde<unknown>,
      timestampExtractor: opts.timestampExtractor as TimestampExtractor<unknown, unknown> | undefined,
    })
  }
}
