/**
 * The BranchedKStream implementation (Kafka's split()): one branch processor whose children are
 * the branches, forwarded to by name; a record goes to the first branch it matches, else to the
 * default branch when there is one, else nowhere.
 */
import { StreamsError } from '../errors.js'
import type { BranchedKStream, Dsl, InternalKStream, KStream } from './dsl-types.js'
import { type BranchRoutes, branchSupplier } from './operators/branch-processor.js'
import { passThroughSupplier } from './operators/stateless-processors.js'

export class BranchedKStreamImpl<K, V, B extends string = never> implements BranchedKStream<K, V, B> {
  private readonly routes: BranchRoutes = { routes: [] }
  private readonly branches: Record<string, KStream<K, V>> = {}
  private readonly node: string
  private readonly prefix: string
  private ended = false

  constructor(
    private readonly dsl: Dsl,
    private readonly parent: InternalKStream<K, V>,
    prefix: string | undefined,
  ) {
    this.node = dsl.graph.nextName('KSTREAM-BRANCH')
    this.prefix = prefix ?? `${this.node}-`
    dsl.graph.addProcessor({
      type: 'processor',
      name: this.node,
      parents: [parent.nodeName],
      supplier: branchSupplier(this.routes),
      stores: [],
    })
  }

  branch<N extends string>(
    predicate: (key: K, value: V) => boolean,
    opts: { readonly name: N },
  ): BranchedKStream<K, V, B | N> {
    const child = this.addBranch(opts?.name, 'branch')
    this.routes.routes.push({ predicate: predicate as (key: unknown, value: unknown) => boolean, child })
    return this as unknown as BranchedKStream<K, V, B | N>
  }

  defaultBranch<N extends string>(opts: { readonly name: N }): Record<B | N, KStream<K, V>> {
    this.routes.defaultChild = this.addBranch(opts?.name, 'defaultBranch')
    this.ended = true
    return { ...this.branches } as Record<B | N, KStream<K, V>>
  }

  noDefaultBranch(): Record<B, KStream<K, V>> {
    this.ended = true
    return { ...this.branches } as Record<B, KStream<K, V>>
  }

  private addBranch(name: string | undefined, operator: string): string {
    if (this.ended) throw new StreamsError('TOPOLOGY', `${this.node}: ${operator}() after the split was ended`)
    if (typeof name !== 'string' || name.length === 0) {
      throw new StreamsError('TOPOLOGY', `${this.node}: ${operator}() needs a branch name ({ name })`)
    }
    if (name in this.branches) throw new StreamsError('TOPOLOGY', `${this.node}: branch name '${name}' is used twice`)
    const child = `${this.prefix}${name}`
    this.dsl.graph.addProcessor({
      type: 'processor',
      name: child,
      parents: [this.node],
      supplier: passThroughSupplier(),
      stores: [],
    })
    this.branches[name] = this.dsl.stream<K, V>({
      nodeName: child,
      keySerde: this.parent.keySerde,
      valueSerde: this.parent.valueSerde,
      repartitionRequired: this.parent.repartitionRequired,
    })
    return child
  }
}
