/**
 * A built topology: what StreamsBuilder.build() returns. It has no application id; describe()
 * shows its shape and plan(applicationId) resolves it for one application (internal topic
 * names) into what the runtime and the test driver run.
 */
import type { TopologyPlan } from '../runtime/task-contract.js'
import type { BuiltTopology } from './topology-plan.js'
import { planTopology } from './topology-plan.js'
import { type StoreDescription, type TopologyDescription, describeTopology } from './topology-description.js'

export class Topology {
  /** @internal Made by StreamsBuilder.build(). */
  constructor(private readonly built: BuiltTopology) {}

  describe(): TopologyDescription {
    const stores = new Map<string, StoreDescription>()
    for (const [name, b] of this.built.stores) {
      stores.set(name, { name, kind: b.kind, persistent: b.persistent, logging: b.logging, caching: b.caching })
    }
    return describeTopology(this.built.subtopologies, stores, this.built.globalStores)
  }

  plan(applicationId: string): TopologyPlan {
    return planTopology(this.built, applicationId)
  }
}
