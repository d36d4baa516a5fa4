/**
 * A replication slot has one reader: a second change-capture connector naming a slot another
 * connector already uses is refused with a 400 naming `slot.name`, and nothing is created. The
 * PostgreSQL here is unreachable (port 1) on purpose: the check reads configs only, before
 * anything connects.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningConnectWorker } from '@sluice/connect'
import type { RealCluster } from '../src/client/real-cluster.js'
import { startStreamsCluster } from '../src/client/streams-cluster.js'
import { startTestWorker, workerHttp } from '../src/connect/worker-rest.js'

let cluster: RealCluster
let worker: RunningConnectWorker
const http = workerHttp(() => worker)

beforeAll(async () => {
  cluster = await startStreamsCluster('sluice-connect-slot-')
  worker = await startTestWorker(cluster, 'connect-slot')
}, 60_000)

afterAll(async () => {
  await worker?.stop()
  await cluster?.stop()
})

const cdc = (slot: string | undefined, port = '1') => ({
  'connector.class': 'PostgresConnector',
  'database.hostname': '127.0.0.1',
  'database.port': port,
  'database.user': 'nobody',
  'database.dbname': 'shop',
  'topic.prefix': 'shop',
  'snapshot.mode': 'never',
  ...(slot === undefined ? {} : { 'slot.name': slot }),
})

describe('two change-capture connectors on one replication slot', () => {
  it('refuses the second with a 400 naming slot.name, by POST and by PUT', async () => {
    expect((await http('POST', '/connectors', { name: 'cdc-a', config: cdc('orders_slot') })).status).toBe(201)

    const post = await http('POST', '/connectors', { name: 'cdc-b', config: cdc('orders_slot') })
    expect(post.status).toBe(400)
    expect(post.body.message).toContain('slot.name')
    expect(post.body.message).toContain('cdc-a')
    const put = await http('PUT', '/connectors/cdc-b/config', cdc('orders_slot'))
    expect(put.status).toBe(400)
    expect((await http('GET', '/connectors/cdc-b')).status).toBe(404)

    // The default slot name counts as a name too.
    expect((await http('POST', '/connectors', { name: 'cdc-c', config: cdc(undefined) })).status).toBe(201)
    expect((await http('POST', '/connectors', { name: 'cdc-d', config: cdc('debezium') })).status).toBe(400)
  })

  it('allows another slot, the same slot on another server, and a connector updating its own config', async () => {
    expect((await http('POST', '/connectors', { name: 'cdc-e', config: cdc('other_slot') })).status).toBe(201)
    expect((await http('POST', '/connectors', { name: 'cdc-f', config: cdc('orders_slot', '2') })).status).toBe(201)
    expect((await http('PUT', '/connectors/cdc-a/config', cdc('orders_slot'))).status).toBe(200)
    // Once cdc-a is deleted, its slot is free.
    expect((await http('DELETE', '/connectors/cdc-a')).status).toBe(204)
    expect((await http('POST', '/connectors', { name: 'cdc-b', config: cdc('orders_slot') })).status).toBe(201)
  })
})
