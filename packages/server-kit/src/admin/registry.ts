/**
 * One prom-client Registry per server (not the library's global one), so several brokers and
 * metadata services in one test process keep separate numbers. The Node.js process metrics
 * (CPU, memory, GC, nodejs_eventloop_lag_seconds, ...) come with it.
 *
 * The event-loop delay histogram samples the loop with a timer of its own. prom-client's default
 * period, 10 ms, wakes an idle server 100 times a second, which was most of an idle broker's CPU
 * (BENCHMARKS.md, issue 16, "the idle broker"); every 100 ms still catches any stall of 100 ms or
 * more (docs/decisions.md).
 */
import { Registry, collectDefaultMetrics } from 'prom-client'

const EVENT_LOOP_SAMPLE_MS = 100

export function createMetricsRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
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
