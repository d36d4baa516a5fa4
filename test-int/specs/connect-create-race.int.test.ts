/**
 * Two Connect workers of one group on a real in-process cluster, each asked over REST to create
 * the same connector names at the same moment: Kafka Connect answers the second create of a name
 * with 409 (it routes creates through the group leader); here the first claim in the config topic
 * decides, so for every name exactly one POST gets 201, the other 409, and the connector has the
 * winner's config on both workers. Two PUTs of one new name: one 201 (created), the other 200 (an
 * update), and both workers agree on the config.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningConnectWorker } from '@sluice/connect'
import { waitFor } from '@sluice/testkit'
import type { RealCluster } from '../src/client/real-cluster.js'
import { startStreamsCluster } from '../src/client/streams-cluster.js'
import { startTestWorker, workerHttp } from '../src/connect/worker-rest.js'

let cluster: RealCluster
const workers: RunningConnectWorker[] = []
const httpA = workerHttp(() => workers[0]!)
const httpB = workerHttp(() => workers[1]!)

beforeAll(async () => {
  cluster = await startStreamsCluster('sluice-connect-race-')
  for (let i = 0; i < 2; i++) workers.push(await startTestWorker(cluster, 'connect-race'))
}, 60_000)

afterAll(async () => {
  for (const w of workers) await w.stop()
  await cluster?.stop()
})

describe('creating one connector name on two workers at once', () => {
  it('gives 201 to one POST and 409 to the other, for every name', async () => {
    // A file source that reads nothing: the config is what is compared.
    const config = (who: string) => ({
      'connector.class': 'FileStreamSource',
      file: `/nonexistent/${who}.txt`,
      topic: `race-${who}`,
    })
    for (let i = 0; i < 10; i++) {
      const name = `race-${i}`
      const [a, b] = await Promise.all([
        httpA('POST', '/connectors', { name, config: config('a') }),
        httpB('POST', '/connectors', { name, config: config('b') }),
      ])
      expect([a.status, b.status].sort(), `${name}: ${JSON.stringify([a.body, b.body])}`).toEqual([201, 409])
      const winner = a.status === 201 ? 'a' : 'b'
      expect((a.status === 409 ? a : b).body).toEqual({ error_code: 409, message: `Connector ${name} already exists` })
      for (const http of [httpA, httpB])
        expect((await http('GET', `/connectors/${name}/config`)).body.file).toBe(`/nonexistent/${winner}.txt`)
    }
  })

  it('gives 201 to one PUT and 200 to the other, for every new name', async () => {
    const config = (who: string) => ({
      'connector.class': 'FileStreamSource',
      file: `/nonexistent/put-${who}.txt`,
      topic: `race-put-${who}`,
    })
    for (let i = 0; i < 10; i++) {
      const name = `race-put-${i}`
      const [a, b] = await Promise.all([
        httpA('PUT', `/connectors/${name}/config`, config('a')),
        httpB('PUT', `/connectors/${name}/config`, config('b')),
      ])
      expect([a.status, b.status].sort(), `${name}: ${JSON.stringify([a.body, b.body])}`).toEqual([200, 201])
      // Each worker has read its own write; the other's may land a moment later.
      const file = await waitFor(
        async () => {
          const files = await Promise.all(
            [httpA, httpB].map(async (http) => (await http('GET', `/connectors/${name}/config`)).body.file),
          )
          return files[0] === files[1] ? (files[0] as string) : undefined
        },
        { timeoutMs: 10_000, description: `both workers showing one config for ${name}` },
      )
      expect(['/nonexistent/put-a.txt', '/nonexistent/put-b.txt']).toContain(file)
    }
  })
})
