/**
 * The graph shape every two-sided join has (stream–stream and table–table): one processor per
 * input, each reading the join's stores, and a pass-through node that merges their results into
 * the join's one output. The join kinds differ only in their processors and stores.
 */
import type { ProcessorSupplier } from '../api/processor.js'
import type { TwoSidedJoinSuppliers } from '../joins/join-types.js'
import type { TopologyGraph } from '../topology/topology-graph.js'
import { passThroughSupplier } from './operators/stateless-processors.js'

type AnySupplier = ProcessorSupplier<unknown, unknown, unknown, unknown>

/** Adds both sides and their merge; returns the merge node's name (the join's output). */
export function addTwoSidedJoin(
  graph: TopologyGraph,
  prefix: 'KSTREAM' | 'KTABLE',
  sides: { readonly left: string; readonly right: string },
  join: TwoSidedJoinSuppliers<unknown, unknown, unknown, unknown>,
  stores: readonly string[],
): string {
  const thisName = graph.nextName(`${prefix}-JOINTHIS`)
  graph.addProcessor({
    type: 'processor',
    name: thisName,
    parents: [sides.left],
    supplier: join.left as AnySupplier,
    stores: [...stores],
  })
  const otherName = graph.nextName(`${prefix}-JOINOTHER`)
  graph.addProcessor({
    type: 'processor',
    name: otherName,
    parents: [sides.right],
    supplier: join.right as AnySupplier,
    stores: [...stores],
  })
  const merged = graph.nextName(`${prefix}-MERGE`)
  graph.addProcessor({
    type: 'processor',
    name: merged,
    parents: [thisName, otherName],
    supplier: passThroughSupplier(),
    stores: [],
  })
  return merged
}
