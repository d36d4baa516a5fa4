/** The KTable implementation (dsl-types.ts has the API). */
import type { Serde } from '../api/serde.js'
import type { ProcessorSupplier } from '../api/processor.js'
import type { Suppressed } from '../processors/suppressed.js'
import { suppressPlan } from '../processors/windowed-aggregate-plan.js'
import { requireName } from '../topology/topology-graph.js'
import type { Dsl, KStream, KTable, TableWindowing } from './dsl-types.js'
import { keyValueStoreBuilder } from './materialize.js'
import { passThroughSupplier } from './operators/stateless-processors.js'
import { type TableUpdate, filterUpdate, mapValuesUpdate, tableUpdateSupplier } from './operators/table-processors.js'
import type { MaterializedOptions, MaterializedWithValueSerde } from './options.js'
import type { JoinKind, NullableValueJoiner, ValueJoiner } from '../joins/join-types.js'
import { type JoinableTable, ktableJoin } from './ktable-joins.js'

type AnyPredicate = (key: unknown, value: unknown) => boolean

export class KTableImpl<K, V> implements KTable<K, V> {
  constructor(
    private readonly dsl: Dsl,
    // Readable (not private) so a table-table join can wire after both tables (ktable-joins.ts).
    readonly nodeName: string,
    readonly storeName: string | undefined,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    /** Added by the windows part: set when the keys are Windowed (suppress needs the windows). */
    private readonly windowing?: TableWindowing,
  ) {}

  filter(predicate: (key: K, value: V) => boolean, opts?: MaterializedOptions): KTable<K, V> {
    return this.transform('KTABLE-FILTER', filterUpdate(predicate as AnyPredicate, true), opts, this.valueSerde)
  }

  filterNot(predicate: (key: K, value: V) => boolean, opts?: MaterializedOptions): KTable<K, V> {
    return this.transform('KTABLE-FILTER', filterUpdate(predicate as AnyPredicate, false), opts, this.valueSerde)
  }

  mapValues<V2>(mapper: (value: V, key: K) => V2, opts?: MaterializedWithValueSerde<V2>): KTable<K, V2> {
    const update = mapValuesUpdate(mapper as (value: unknown, key: unknown) => unknown)
    return this.transform<V2>('KTABLE-MAPVALUES', update, opts, opts?.valueSerde)
  }

  toStream(): KStream<K, V> {
    const graph = this.dsl.graph
    const name = graph.nextName('KTABLE-TOSTREAM')
    graph.addProcessor({
      type: 'processor',
      name,
      parents: [this.nodeName],
      supplier: passThroughSupplier(),
      stores: [],
    })
    return this.dsl.stream<K, V>({
      nodeName: name,
      keySerde: this.keySerde,
      valueSerde: this.valueSerde,
      repartitionRequired: false,
    })
  }

  suppress(suppressed: Suppressed, opts: { readonly name: string }): KTable<K, V> {
    const graph = this.dsl.graph
    const name = requireName(opts?.name, 'suppress', 'a name')
    const keySerde = this.keySerde
    const valueSerde = this.valueSerde
    // Keys are told apart, and sized for maxBytes, by their bytes when the serdes are known.
    const plan = suppressPlan<K, V>(name, suppressed, this.windowing, {
      keyIdentity: keySerde === undefined ? undefined : (key) => keySerde.serialize(key, name).toString('latin1'),
      sizeOf:
        keySerde === undefined || valueSerde === undefined
          ? undefined
          : (key, value) =>
              keySerde.serialize(key, name).length +
              (value === null ? 0 : valueSerde.serialize(value as V, name).length),
    })
    graph.addProcessor({
      type: 'processor',
      name,
      parents: [this.nodeName],
      supplier: plan.supplier as ProcessorSupplier<unknown, unknown, unknown, unknown>,
      stores: plan.connectedStores,
    })
    return this.dsl.table<K, V>(name, undefined, keySerde, valueSerde, this.windowing)
  }

  join<VO, VR>(other: KTable<K, VO>, joiner: ValueJoiner<K, V, VO, VR>, opts: MaterializedOptions): KTable<K, VR> {
    return this.joinWith('inner', other, joiner, opts)
  }

  leftJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoiner<K, V, VO | null, VR>,
    opts: MaterializedOptions,
  ): KTable<K, VR> {
    return this.joinWith('left', other, joiner, opts)
  }

  outerJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoiner<K, V | null, VO | null, VR>,
    opts: MaterializedOptions,
  ): KTable<K, VR> {
    return this.joinWith('outer', other, joiner, opts)
  }

  private joinWith<VR>(
    kind: JoinKind,
    other: object,
    joiner: (left: never, right: never, key: never) => unknown,
    opts: MaterializedOptions,
  ): KTable<K, VR> {
    const join = joiner as unknown as NullableValueJoiner<unknown, unknown, unknown, unknown>
    return ktableJoin(this.dsl, kind, this, other as unknown as JoinableTable<K, unknown>, join, opts) as KTable<K, VR>
  }

  private transform<V2>(
    kind: string,
    update: TableUpdate,
    opts: MaterializedOptions | undefined,
    valueSerde: Serde<V2> | undefined,
  ): KTable<K, V2> {
    const graph = this.dsl.graph
    const name = graph.nextName(kind)
    let storeName: string | undefined
    if (opts !== undefined) {
      const store = keyValueStoreBuilder(opts, `${kind} (${name})`, this.keySerde, valueSerde)
      graph.addStore(store, `${kind} (${name})`)
      storeName = store.name
    }
    graph.addProcessor({
      type: 'processor',
      name,
      parents: [this.nodeName],
      supplier: tableUpdateSupplier(update, storeName),
      stores: storeName === undefined ? [] : [storeName],
    })
    return this.dsl.table<K, V2>(name, storeName, this.keySerde, valueSerde, this.windowing)
  }
}
