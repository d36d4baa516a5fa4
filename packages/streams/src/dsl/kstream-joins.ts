/**
 * How KStream's join, leftJoin and outerJoin wire the join processors (src/joins/) into the
 * topology graph, so kstream.ts only delegates here.
 *
 * - With a KTable: one processor after the stream that reads the table's store. Connecting it
 *   to that store puts it in the table's sub-topology, and the store's upstream source topics
 *   (the stream's and the table's) become one co-partition group the runtime checks.
 * - With a KStream and JoinWindows: the join's window stores (and, for left/outer, the
 *   outer-shared store) named from StreamJoined's store name, one processor after each stream,
 *   and a pass-through node after both that is the joined stream.
 * - With a GlobalKTable: one processor connected to the instance's global store, which looks up
 *   the key its selector computes; no co-partitioning and no repartition needed.
 * A stream whose key changed must be repartitioned first (`repartition({ name })`): a join reads
 * its inputs partitioned by key, and repartition names are never generated.
 */
import type { ProcessorSupplier } from '../api/processor.js'
import { StreamsError } from '../errors.js'
import type { JoinWindows } from '../joins/join-windows.js'
import type { JoinKind, NullableValueJoiner } from '../joins/join-types.js'
import {
  type GlobalKeySelector,
  type GlobalValueJoiner,
  streamGlobalTableJoin,
} from '../joins/stream-global-table-join.js'
import { streamStreamJoin } from '../joins/stream-stream-join.js'
import { type StreamJoined, streamJoinStores } from '../joins/stream-joined.js'
import { streamTableJoin } from '../joins/stream-table-join.js'
import type { StateStore, StoreBuilder } from '../state/store-types.js'
import type { Dsl, GlobalKTable, InternalKStream, KStream } from './dsl-types.js'
import { addTwoSidedJoin } from './two-sided-join.js'

type AnySupplier = ProcessorSupplier<unknown, unknown, unknown, unknown>
/** What the wiring reads of an input stream. */
interface JoinInput {
  readonly nodeName: string
  readonly repartitionRequired: boolean
}

/** The joiner as the DSL receives it (typed per variant in dsl-types.ts). */
export type AnyJoiner = (left: never, right: never, key: never) => unknown

export function kstreamJoin<K, V>(
  dsl: Dsl,
  stream: InternalKStream<K, V>,
  kind: JoinKind,
  other: object,
  joiner: AnyJoiner,
  /** JoinWindows for a stream; the value joiner for a global table (`joiner` is then its key selector). */
  windows: JoinWindows | AnyJoiner | undefined,
  joined: StreamJoined<K, V, unknown> | undefined,
): KStream<K, unknown> {
  const operator = `${kind === 'inner' ? 'join' : `${kind}Join`}()`
  const join = joiner as unknown as NullableValueJoiner<unknown, unknown, unknown, unknown>
  if ('topic' in other && !('toStream' in other)) {
    if (kind === 'outer')
      throw new StreamsError('TOPOLOGY', 'outerJoin(): a stream joins a global table inner or left only')
    const selector = joiner as unknown as GlobalKeySelector<unknown, unknown, unknown>
    const globalJoiner = windows as unknown as GlobalValueJoiner<unknown, unknown, unknown, unknown>
    return streamGlobalNode(dsl, stream, kind, other as GlobalKTable<unknown, unknown>, selector, globalJoiner)
  }
  requirePartitioned(stream, operator)
  if ('toStream' in other) {
    if (kind === 'outer') throw new StreamsError('TOPOLOGY', 'outerJoin(): a stream joins a table inner or left only')
    return streamTableNode(
      dsl,
      stream,
      kind,
      other as unknown as { readonly storeName: string | undefined },
      join,
      operator,
    )
  }
  if (windows === undefined || typeof windows === 'function' || joined === undefined) {
    throw new StreamsError('TOPOLOGY', `${operator} of two streams needs JoinWindows and StreamJoined (its store name)`)
  }
  return streamStreamNodes(dsl, stream, kind, other as unknown as JoinInput, join, windows, joined, operator)
}

function streamTableNode<K, V>(
  dsl: Dsl,
  stream: InternalKStream<K, V>,
  kind: 'inner' | 'left',
  table: { readonly storeName: string | undefined },
  joiner: NullableValueJoiner<unknown, unknown, unknown, unknown>,
  operator: string,
): KStream<K, unknown> {
  const tableStore = table.storeName
  if (tableStore === undefined) {
    throw new StreamsError('TOPOLOGY', `${operator}: the table is not materialized; give it a store ({ name })`)
  }
  const name = dsl.graph.nextName('KSTREAM-JOIN')
  dsl.graph.addProcessor({
    type: 'processor',
    name,
    parents: [stream.nodeName],
    supplier: streamTableJoin({ kind, tableStore, joiner }) as AnySupplier,
    stores: [tableStore],
  })
  return dsl.stream<K, unknown>({
    nodeName: name,
    keySerde: stream.keySerde,
    valueSerde: undefined,
    repartitionRequired: false,
  })
}

function streamGlobalNode<K, V>(
  dsl: Dsl,
  stream: InternalKStream<K, V>,
  kind: 'inner' | 'left',
  table: GlobalKTable<unknown, unknown>,
  keySelector: GlobalKeySelector<unknown, unknown, unknown>,
  joiner: GlobalValueJoiner<unknown, unknown, unknown, unknown>,
): KStream<K, unknown> {
  const name = dsl.graph.nextName('KSTREAM-GLOBALJOIN')
  dsl.graph.addProcessor({
    type: 'processor',
    name,
    parents: [stream.nodeName],
    supplier: streamGlobalTableJoin({ kind, globalStore: table.storeName, keySelector, joiner }) as AnySupplier,
    stores: [],
    globalStores: [table.storeName],
  })
  // The stream keeps its key: no repartition is needed before or after (the global table is whole here).
  return dsl.stream<K, unknown>({
    nodeName: name,
    keySerde: stream.keySerde,
    valueSerde: undefined,
    repartitionRequired: stream.repartitionRequired,
  })
}

function streamStreamNodes<K, V>(
  dsl: Dsl,
  left: InternalKStream<K, V>,
  kind: JoinKind,
  right: JoinInput,
  joiner: NullableValueJoiner<unknown, unknown, unknown, unknown>,
  windows: JoinWindows,
  joined: StreamJoined<K, V, unknown>,
  operator: string,
): KStream<K, unknown> {
  requirePartitioned(right, operator)
  const graph = dsl.graph
  const builders = streamJoinStores(kind, windows, joined)
  const stores = [builders.left, builders.right, ...(builders.pending === undefined ? [] : [builders.pending])]
  for (const builder of stores) graph.addStore(builder as unknown as StoreBuilder<StateStore>, operator)
  const storeNames = stores.map((b) => b.name)
  const join = streamStreamJoin({ kind, windows, stores: builders.names, joiner })
  const merged = addTwoSidedJoin(graph, 'KSTREAM', { left: left.nodeName, right: right.nodeName }, join, storeNames)
  return dsl.stream<K, unknown>({
    nodeName: merged,
    keySerde: joined.options.keySerde,
    valueSerde: undefined,
    repartitionRequired: false,
  })
}

function requirePartitioned(stream: JoinInput, operator: string): void {
  if (stream.repartitionRequired) {
    throw new StreamsError(
      'TOPOLOGY',
      `${operator}: a stream whose key changed must be repartitioned first (repartition({ name })) so equal keys meet in one task`,
    )
  }
}
