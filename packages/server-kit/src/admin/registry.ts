/**
 * One prom-client Registry per server (not the library's global one), so several brokers and
 * metadata services in one test process keep separate numbers. The Node.js process metrics
 * (CPU, memory, GC, nodejs_eventloop_lag_seconds, ...) come with it.
 */
import { Registry, collectDefaultMetrics } from 'prom-client'

export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  return registry
}

/** Memoises a label child per key (e.g. per topic), so hot paths never rebuild label objects. */
export function childCache<T>(make: (key: string) => T): { get(key: string): T; delete(key: string): void } {
  const children = new Map<string, T>()
  return {
    get(key) {
      let c = children.get(key)
      if (c === undefined) {
        c = make(key)
        children.set(key, c)
      }
      return c
    },
    delete(key) {
      children.delete(key)
    },
  }
}
