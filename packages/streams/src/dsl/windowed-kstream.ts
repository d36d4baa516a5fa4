/**
 * The WindowedKStream implementation (dsl-types.ts has the API): each aggregation is one
 * processor from processors/windowed-aggregate-plan.ts with the stores it names, and a table
 * keyed by Windowed<K> whose key serde is windowedSerde(key serde).
 */
import type { Windowed } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import {
  type WindowAggregation,
  aggregateAggregation,
  countAggregation,
  reduceAggregation,
} from '../processors/window-aggregation.js'
import { type AnyWindows, windowedAggregatePlan } from '../processors/windowed-aggregate-plan.js'
import { longSerde } from '../serdes/number-serdes.js'
import type { ProcessorSupplier } from '../api/processor.js'
import { requireName } from '../topology/topology-graph.js'
import { windowedSerde } from '../windows/windowed-serde.js'
import type { Dsl, KTable, WindowedKStream } from './dsl-types.js'
import { requireSerde } from './materialize.js'
import type { WindowedMaterializedOptions } from './options.js'

export class WindowedKStreamImpl<K, V> implements WindowedKStream<K, V> {
  constructor(
    private readonly dsl: Dsl,
    private readonly nodeName: string,
    private readonly keySerde: Serde<K> | undefined,
    private readonly valueSerde: Serde<V> | undefined,
    private readonly windows: AnyWindows,
  ) {}

  count(opts: WindowedMaterializedOptions): KTable<Windowed<K>, number> {
    return this.aggregation('count', opts, longSerde, countAggregation<K, V>())
  }

  reduce(
    reducer: (aggregate: V, value: V) => V,
    opts: WindowedMaterializedOptions & { readonly valueSerde?: Serde<V> },
  ): KTable<Windowed<K>, V> {
    return this.aggregation('reduce', opts, opts?.valueSerde ?? this.valueSerde, reduceAggregation<K, V>(reducer))
  }

  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    opts: WindowedMaterializedOptions & {
      readonly valueSerde: Serde<A>
      readonly merger?: (key: K, older: A, newer: A) => A
    },
  ): KTable<Windowed<K>, A> {
    return this.aggregation(
      'aggregate',
      opts,
      opts?.valueSerde,
      aggregateAggregation(initializer, aggregator, opts?.merger),
    )
  }

  private aggregation<A>(
    operator: string,
    opts: WindowedMaterializedOptions | undefined,
    aggregateSerde: Serde<A> | undefined,
    aggregation: WindowAggregation<K, V, A>,
  ): KTable<Windowed<K>, A> {
    const graph = this.dsl.graph
    const what = `windowed ${operator}`
    const storeName = requireName(opts?.name, what, 'a state store name')
    const keySerde = requireSerde(this.keySerde, what, 'keySerde')
    const plan = windowedAggregatePlan({
      storeName,
      windows: this.windows,
      aggregation,
      keySerde,
      valueSerde: this.valueSerde,
      aggregateSerde: requireSerde(aggregateSerde, what, 'valueSerde'),
      persistent: opts?.persistent,
      retentionMs: opts?.retentionMs,
      storeOptions: { logging: opts?.logging ?? true, caching: opts?.caching ?? true },
    })
    const name = graph.nextName(`KSTREAM-WINDOWED-${operator.toUpperCase()}`)
    for (const store of plan.stores) graph.addStore(store, `${what} (${name})`)
    graph.addProcessor({
      type: 'processor',
      name,
      parents: [this.nodeName],
      supplier: plan.supplier as ProcessorSupplier<unknown, unknown, unknown, unknown>,
      stores: plan.stores.map((store) => store.name),
    })
    return this.dsl.table<Windowed<K>, A>(name, storeName, windowedSerde(keySerde), aggregateSerde, {
      windows: this.windows,
      resultStore: plan.resultStore,
    })
  }
}
