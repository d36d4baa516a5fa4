/** The KGroupedStream implementation (dsl-types.ts has the API and where windows go). */
import type { Serde } from '../api/serde.js'
import { longSerde } from '../serdes/number-serdes.js'
import { StreamsError } from '../errors.js'
import { SessionWindows } from '../windows/session-windows.js'
import { SlidingWindows } from '../windows/sliding-windows.js'
import { TimeWindows } from '../windows/time-windows.js'
import type { Dsl, KGroupedStream, KTable, WindowedKStream } from './dsl-types.js'
import { keyValueStoreBuilder } from './materialize.js'
import { type Aggregation, aggregateSupplier } from './operators/aggregate-processor.js'
import type { MaterializedOptions, MaterializedWithValueSerde } from './options.js'
import { WindowedKStreamImpl } from './windowed-kstream.js'

export class KGroupedStreamImpl<K, V> implements KGroupedStream<K, V> {
  constructor(
    private readonly dsl: Dsl,
    private readonly nodeName: string,
    private readonly keySerde: Serde<K> | undefined,
    private readonly valueSerde: Serde<V> | undefined,
  ) {}

  count(opts: MaterializedOptions): KTable<K, number> {
    return this.aggregation<number>('count', opts, longSerde, {
      initial: () => 0,
      add: (_key, _value, count) => count + 1,
    })
  }

  reduce(reducer: (aggregate: V, value: V) => V, opts: MaterializedWithValueSerde<V>): KTable<K, V> {
    // A key with no aggregate yet has none in the store: its first value is its first aggregate.
    const none = Symbol('none')
    return this.aggregation<V>('reduce', opts, opts?.valueSerde ?? this.valueSerde, {
      initial: () => none as unknown as V,
      add: (_key, value, aggregate) => ((aggregate as unknown) === none ? value : reducer(aggregate, value)),
    })
  }

  aggregate<A>(
    initializer: () => A,
    aggregator: (key: K, value: V, aggregate: A) => A,
    opts: MaterializedOptions & { readonly valueSerde: Serde<A> },
  ): KTable<K, A> {
    return this.aggregation<A>('aggregate', opts, opts?.valueSerde, { initial: initializer, add: aggregator })
  }

  windowedBy(windows: TimeWindows | SlidingWindows | SessionWindows): WindowedKStream<K, V> {
    if (!(windows instanceof TimeWindows || windows instanceof SlidingWindows || windows instanceof SessionWindows)) {
      throw new StreamsError('TOPOLOGY', 'windowedBy needs TimeWindows, SlidingWindows or SessionWindows')
    }
    return new WindowedKStreamImpl(this.dsl, this.nodeName, this.keySerde, this.valueSerde, windows)
  }

  private aggregation<A>(
    operator: string,
    opts: MaterializedOptions | undefined,
    valueSerde: Serde<A> | undefined,
    aggregation: Aggregation<K, V, A>,
  ): KTable<K, A> {
    const graph = this.dsl.graph
    const store = keyValueStoreBuilder(opts, operator, this.keySerde, valueSerde)
    const name = graph.nextName(`KSTREAM-${operator.toUpperCase()}`)
    graph.addStore(store, `${operator} (${name})`)
    graph.addProcessor({
      type: 'processor',
      name,
      parents: [this.nodeName],
      supplier: aggregateSupplier(store.name, aggregation),
      stores: [store.name],
    })
    return this.dsl.table<K, A>(name, store.name, this.keySerde, valueSerde)
  }
}
