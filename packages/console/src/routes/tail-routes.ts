/** GET /api/topics/:name/tail: the live tail as Server-Sent Events (messages/live-tail.ts). */
import { badRequest } from '../errors.js'
import { intParam } from '../http/query.js'
import type { Route } from '../http/route.js'
import { streamTail } from '../messages/live-tail.js'
import { partitionsOf } from '../messages/topic-partitions.js'

export interface TailSettings {
  readonly heartbeatMs: number
  readonly maxPerSecond: number
}

export function tailRoutes(settings: TailSettings): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/topics/:name/tail',
      mutates: false,
      tokenInQuery: true,
      handle: async ({ client, params, query }) => {
        const topic = params.name!
        const from = query.get('from') ?? 'end'
        if (from !== 'end' && from !== 'beginning') throw badRequest('from must be "end" or "beginning"')
        const wanted = intParam(query, 'partition', { min: 0 })
        // Checked before the stream opens, so a wrong topic is a plain 404 and not an event.
        const { partitions } = await partitionsOf(client, topic, wanted)
        return {
          stream: async (res, signal) =>
            await streamTail(client, res, signal, { topic, partitions, from, ...settings }),
        }
      },
    },
  ]
}
