/**
 * The overview and the brokers pages: GET /api/cluster (cluster-view.ts), GET /api/brokers and
 * GET /api/brokers/:id (one broker and its partitions, paginated), and GET
 * /api/metrics/throughput (the live rates the throughput sampler keeps while someone looks).
 */
import { brokerPartitions, loadClusterView } from '../cluster-view.js'
import { ConsoleError, badRequest } from '../errors.js'
import { pageRequest, slicePage } from '../http/pagination.js'
import { ok, type Route } from '../http/route.js'
import type { ThroughputSampler } from '../sampling/throughput-sampler.js'

export function clusterRoutes(throughput: ThroughputSampler): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/cluster',
      mutates: false,
      handle: async ({ client }) => {
        const { described: _, ...view } = await loadClusterView(client)
        return ok(view)
      },
    },
    {
      method: 'GET',
      path: '/api/brokers',
      mutates: false,
      handle: async ({ client }) => {
        const view = await loadClusterView(client)
        return ok({ controller: view.controller, items: view.brokers, total: view.brokers.length })
      },
    },
    {
      method: 'GET',
      path: '/api/brokers/:id',
      mutates: false,
      handle: async ({ client, params, query }) => {
        if (!/^\d+$/.test(params.id!)) throw badRequest(`a broker id is a number, got "${params.id}"`)
        const id = Number(params.id)
        const view = await loadClusterView(client)
        const broker = view.brokers.find((b) => b.id === id)
        if (broker === undefined) throw new ConsoleError('NOT_FOUND', `broker ${id} is not in this cluster`)
        const req = pageRequest(query)
        const { slice, total } = slicePage(brokerPartitions(view.described, id), req)
        return ok({ ...broker, partitions: { items: slice, total, ...req } })
      },
    },
    {
      method: 'GET',
      path: '/api/metrics/throughput',
      mutates: false,
      handle: async () =>
        ok({ intervalMs: throughput.intervalMs, samples: throughput.samples(), sources: throughput.sources() }),
    },
  ]
}
