/**
 * Splits a topology into sub-topologies: the connected components of the processor graph,
 * where parent-child edges connect nodes and a store connects every processor that uses it
 * (they must run in the same task). A repartition topic separates components by itself: its
 * sink and its source are different nodes with no edge between them, so the records cross
 * over the topic (and may land on another instance).
 *
 * Ids follow the order of each component's first node, which is the order of the DSL calls:
 * building the same program gives the same ids.
 */
import type { NodeDef } from './node-defs.js'

export interface Subtopology {
  readonly id: number
  /** In insertion order, so every parent comes before its children. */
  readonly nodes: readonly NodeDef[]
  /** Stores used by the processors, in order of first use. */
  readonly stores: readonly string[]
}

export function splitSubtopologies(nodes: ReadonlyMap<string, NodeDef>): Subtopology[] {
  const parent = new Map<string, string>()
  const find = (x: string): string => {
    let root = x
    while (parent.get(root) !== root) root = parent.get(root) as string
    // Path compression keeps the later finds short.
    let cur = x
    while (cur !== root) {
      const next = parent.get(cur) as string
      parent.set(cur, root)
      cur = next
    }
    return root
  }
  const union = (a: string, b: string): void => {
    const ra = find(a)
    const rb = find(b)
    if (ra !== rb) parent.set(rb, ra)
  }
  for (const name of nodes.keys()) parent.set(name, name)
  const storeUser = new Map<string, string>()
  for (const node of nodes.values()) {
    if (node.type === 'source') continue
    for (const p of node.parents) union(node.name, p)
    if (node.type === 'processor') {
      for (const store of node.stores) {
        const other = storeUser.get(store)
        if (other === undefined) storeUser.set(store, node.name)
        else union(node.name, other)
      }
    }
  }
  const byRoot = new Map<string, { nodes: NodeDef[]; stores: string[] }>()
  for (const node of nodes.values()) {
    const root = find(node.name)
    let group = byRoot.get(root)
    if (group === undefined) {
      group = { nodes: [], stores: [] }
      byRoot.set(root, group)
    }
    group.nodes.push(node)
    if (node.type === 'processor') {
      for (const store of node.stores) if (!group.stores.includes(store)) group.stores.push(store)
    }
  }
  return [...byRoot.values()].map((g, id) => ({ id, nodes: g.nodes, stores: g.stores }))
}
