/**
 * The KStream implementation (dsl-types.ts has the API). Each operator adds a node to the
 * topology graph and returns a new stream over it. The stream remembers the serdes it still
 * knows and whether its key changed since it was last partitioned by key (map, flatMap,
 * selectKey, process): an aggregation after a key change first sends the records through a
 * repartition topic, which the user names.
 */
import type { ProcessorSupplier } from '../api/processor.js'
import type { StreamRecord } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import type { KeyValue } from '../state/store-types.js'
import type { TopicNameExtractor } from '../topology/node-defs.js'
import type { JoinWindows } from '../joins/join-windows.js'
import type { ValueJoiner } from '../joins/join-types.js'
import type { StreamJoined } from '../joins/stream-joined.js'
import type { GlobalKeySelector, GlobalValueJoiner } from '../joins/stream-global-table-join.js'
import type {
  BranchedKStream,
  Dsl,
  GlobalKTable,
  InternalKStream,
  KGroupedStream,
  KStream,
  KTable,
  StreamState,
} from './dsl-types.js'
import { type AnyJoiner, kstreamJoin } from './kstream-joins.js'
import { requireSerde } from './materialize.js'
import {
  filterSupplier,
  flatMapSupplier,
  flatMapValuesSupplier,
  mapSupplier,
  mapValuesSupplier,
  passThroughSupplier,
  peekSupplier,
  selectKeySupplier,
} from './operators/stateless-processors.js'
import type { GroupedOptions, ProducedOptions, RepartitionOptions } from './options.js'

type AnySupplier = ProcessorSupplier<unknown, unknown, unknown, unknown>
/** A KStream or a KTable (kstream-joins.ts tells them apart). */
type Joinable = object
type AnyJoined<K, V> = StreamJoined<K, V, unknown>
/** The third argument: JoinWindows (with a stream) or the value joiner (with a global table). */
type WindowsOrJoiner = JoinWindows | AnyJoiner

export class KStreamImpl<K, V> implements InternalKStream<K, V> {
  readonly nodeName: string
  readonly keySerde: Serde<K> | undefined
  readonly valueSerde: Serde<V> | undefined
  readonly repartitionRequired: boolean

  constructor(
    private readonly dsl: Dsl,
    state: StreamState<K, V>,
  ) {
    this.nodeName = state.nodeName
    this.keySerde = state.keySerde
    this.valueSerde = state.valueSerde
    this.repartitionRequired = state.repartitionRequired
  }

  filter(predicate: (key: K, value: V) => boolean): KStream<K, V> {
    return this.addStep('KSTREAM-FILTER', filterSupplier(predicate, true), this.keySerde, this.valueSerde, false)
  }

  filterNot(predicate: (key: K, value: V) => boolean): KStream<K, V> {
    return this.addStep('KSTREAM-FILTER', filterSupplier(predicate, false), this.keySerde, this.valueSerde, false)
  }

  map<K2, V2>(mapper: (key: K, value: V) => KeyValue<K2, V2>): KStream<K2, V2> {
    return this.addStep<K2, V2>('KSTREAM-MAP', mapSupplier(mapper), undefined, undefined, true)
  }

  mapValues<V2>(mapper: (value: V, key: K) => V2): KStream<K, V2> {
    return this.addStep<K, V2>('KSTREAM-MAPVALUES', mapValuesSupplier(mapper), this.keySerde, undefined, false)
  }

  flatMap<K2, V2>(mapper: (key: K, value: V) => Iterable<KeyValue<K2, V2>>): KStream<K2, V2> {
    return this.addStep<K2, V2>('KSTREAM-FLATMAP', flatMapSupplier(mapper), undefined, undefined, true)
  }

  flatMapValues<V2>(mapper: (value: V, key: K) => Iterable<V2>): KStream<K, V2> {
    const supplier = flatMapValuesSupplier(mapper)
    return this.addStep<K, V2>('KSTREAM-FLATMAPVALUES', supplier, this.keySerde, undefined, false)
  }

  selectKey<K2>(selector: (key: K, value: V) => K2): KStream<K2, V> {
    return this.rekey(selector)
  }

  peek(action: (key: K, value: V) => void): KStream<K, V> {
    return this.addStep('KSTREAM-PEEK', peekSupplier(action), this.keySerde, this.valueSerde, false)
  }

  foreach(action: (key: K, value: V) => void): void {
    this.addStep('KSTREAM-FOREACH', peekSupplier(action), this.keySerde, this.valueSerde, false)
  }

  split(opts: { readonly name?: string } = {}): BranchedKStream<K, V> {
    return this.dsl.branched(this, opts?.name)
  }

  merge(other: KStream<K, V>): KStream<K, V> {
    const that = other as InternalKStream<K, V>
    const name = this.dsl.graph.nextName('KSTREAM-MERGE')
    this.dsl.graph.addProcessor({
      type: 'processor',
      name,
      parents: [this.nodeName, that.nodeName],
      supplier: passThroughSupplier(),
      stores: [],
    })
    return this.dsl.stream<K, V>({
      nodeName: name,
      keySerde: this.keySerde === that.keySerde ? this.keySerde : undefined,
      valueSerde: this.valueSerde === that.valueSerde ? this.valueSerde : undefined,
      repartitionRequired: this.repartitionRequired || that.repartitionRequired,
    })
  }

  repartition(opts: RepartitionOptions<K, V>): KStream<K, V> {
    const keySerde = opts?.keySerde ?? this.keySerde
    const valueSerde = opts?.valueSerde ?? this.valueSerde
    return this.throughRepartition('repartition', opts?.name, keySerde, valueSerde, opts?.partitions)
  }

  to(topic: string | TopicNameExtractor<K, V>, opts: ProducedOptions<K, V> = {}): void {
    const operator = `to(${describeTarget(topic)})`
    this.dsl.graph.addSink({
      type: 'sink',
      name: this.dsl.graph.nextName('KSTREAM-SINK'),
      parents: [this.nodeName],
      topic:
        typeof topic === 'function' ? (topic as TopicNameExtractor<unknown, unknown>) : { kind: 'user', name: topic },
      keySerde: requireSerde(opts?.keySerde ?? this.keySerde, operator, 'keySerde'),
      valueSerde: requireSerde(opts?.valueSerde ?? this.valueSerde, operator, 'valueSerde'),
      partitioner: opts?.partitioner as ProducedOptions<unknown, unknown>['partitioner'],
    })
  }

  process<K2, V2>(
    supplier: ProcessorSupplier<K, V, K2, V2>,
    opts: { readonly stores?: readonly string[] } = {},
  ): KStream<K2, V2> {
    const name = this.dsl.graph.nextName('KSTREAM-PROCESSOR')
    this.dsl.graph.addProcessor({
      type: 'processor',
      name,
      parents: [this.nodeName],
      supplier: supplier as unknown as AnySupplier,
      stores: [...(opts?.stores ?? [])],
    })
    return this.dsl.stream<K2, V2>({
      nodeName: name,
      keySerde: undefined,
      valueSerde: undefined,
      repartitionRequired: true,
    })
  }

  groupByKey(opts: GroupedOptions<K, V> = {}): KGroupedStream<K, V> {
    return this.grouped('groupByKey', this, opts)
  }

  groupBy<K2>(selector: (key: K, value: V) => K2, opts: GroupedOptions<K2, V> & { readonly name: string }) {
    return this.grouped('groupBy', this.rekey(selector), opts, 'groupBy')
  }

  join<VO, VR>(
    other: KStream<K, VO>,
    joiner: ValueJoiner<K, V, VO, VR>,
    windows: JoinWindows,
    joined: StreamJoined<K, V, VO>,
  ): KStream<K, VR>
  join<VT, VR>(table: KTable<K, VT>, joiner: ValueJoiner<K, V, VT, VR>): KStream<K, VR>
  join<GK, GV, VR>(
    globalTable: GlobalKTable<GK, GV>,
    keySelector: GlobalKeySelector<K, V, GK>,
    joiner: GlobalValueJoiner<K, V, GV, VR>,
  ): KStream<K, VR>
  join(other: Joinable, joiner: AnyJoiner, windows?: WindowsOrJoiner, joined?: AnyJoined<K, V>): KStream<K, unknown> {
    return kstreamJoin(this.dsl, this, 'inner', other, joiner, windows, joined)
  }

  leftJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: ValueJoiner<K, V, VO | null, VR>,
    windows: JoinWindows,
    joined: StreamJoined<K, V, VO>,
  ): KStream<K, VR>
  leftJoin<VT, VR>(table: KTable<K, VT>, joiner: ValueJoiner<K, V, VT | null, VR>): KStream<K, VR>
  leftJoin<GK, GV, VR>(
    globalTable: GlobalKTable<GK, GV>,
    keySelector: GlobalKeySelector<K, V, GK>,
    joiner: GlobalValueJoiner<K, V, GV, VR>,
  ): KStream<K, VR>
  leftJoin(
    other: Joinable,
    joiner: AnyJoiner,
    windows?: WindowsOrJoiner,
    joined?: AnyJoined<K, V>,
  ): KStream<K, unknown> {
    return kstreamJoin(this.dsl, this, 'left', other, joiner, windows, joined)
  }

  outerJoin<VO, VR>(
    other: KStream<K, VO>,
    joiner: ValueJoiner<K, V | null, VO | null, VR>,
    windows: JoinWindows,
    joined: StreamJoined<K, V, VO>,
  ): KStream<K, VR> {
    return kstreamJoin(this.dsl, this, 'outer', other, joiner, windows, joined) as KStream<K, VR>
  }

  private rekey<K2>(selector: (key: K, value: V) => K2): KStreamImpl<K2, V> {
    return this.addStep<K2, V>('KSTREAM-KEY-SELECT', selectKeySupplier(selector), undefined, this.valueSerde, true)
  }

  private grouped<K2>(
    operator: string,
    stream: KStreamImpl<K2, V>,
    opts: GroupedOptions<K2, V>,
    repartitionOperator = `${operator} (after a key change)`,
  ): KGroupedStream<K2, V> {
    const keySerde = opts?.keySerde ?? stream.keySerde
    const valueSerde = opts?.valueSerde ?? stream.valueSerde
    const partitioned = stream.repartitionRequired
      ? stream.throughRepartition(repartitionOperator, opts?.name, keySerde, valueSerde, undefined)
      : stream
    return this.dsl.grouped<K2, V>(partitioned.nodeName, keySerde, valueSerde)
  }

  /** A sink to the repartition topic and a new source reading it (so a new sub-topology). */
  private throughRepartition(
    operator: string,
    repartitionName: string | undefined,
    keySerde: Serde<K> | undefined,
    valueSerde: Serde<V> | undefined,
    partitions: number | undefined,
  ): KStreamImpl<K, V> {
    const graph = this.dsl.graph
    const topic = graph.addRepartition(repartitionName, operator, partitions)
    const keys = requireSerde(keySerde, operator, 'keySerde')
    const values = requireSerde(valueSerde, operator, 'valueSerde')
    graph.addSink({
      type: 'sink',
      name: graph.nextName('KSTREAM-SINK'),
      parents: [this.nodeName],
      topic,
      keySerde: keys,
      valueSerde: values,
    })
    const source = graph.nextName('KSTREAM-SOURCE')
    graph.addSource({ type: 'source', name: source, topics: [topic], keySerde: keys, valueSerde: values })
    return new KStreamImpl<K, V>(this.dsl, {
      nodeName: source,
      keySerde: keys,
      valueSerde: values,
      repartitionRequired: false,
    })
  }

  /** Adds a one-parent processor and returns the stream over it. */
  private addStep<K2, V2>(
    kind: string,
    supplier: AnySupplier,
    keySerde: Serde<K2> | undefined,
    valueSerde: Serde<V2> | undefined,
    keyChanged: boolean,
  ): KStreamImpl<K2, V2> {
    const name = this.dsl.graph.nextName(kind)
    this.dsl.graph.addProcessor({ type: 'processor', name, parents: [this.nodeName], supplier, stores: [] })
    return new KStreamImpl<K2, V2>(this.dsl, {
      nodeName: name,
      keySerde,
      valueSerde,
      repartitionRequired: this.repartitionRequired || keyChanged,
    })
  }
}

function describeTarget<K, V>(topic: string | ((r: StreamRecord<K, V>) => string)): string {
  return typeof topic === 'function' ? 'a topic function' : `'${topic}'`
}
