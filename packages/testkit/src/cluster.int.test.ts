import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { connect } from '@sluice/client'
import { afterEach, describe, expect, it, onTestFinished } from 'vitest'
import { startCluster } from './cluster.js'
import { isPortFree } from './ports.js'
import { liveResources, stopAll } from './tracker.js'
import { useCluster } from './use-cluster.js'

afterEach(async () => {
  await stopAll()
  expect(liveResources()).toEqual([])
})

describe('startCluster (in-process)', () => {
  it('starts a metadata service and 3 brokers that are registered and serve records', async () => {
    const cluster = await useCluster(onTestFinished, { brokers: 3 })
    expect(cluster.brokers.map((b) => b.brokerId)).toEqual([1, 2, 3])
    expect(cluster.bootstrap).toEqual(cluster.brokers.map((b) => b.endpoint))
    expect(new Set(cluster.brokers.map((b) => b.port)).size).toBe(3)

    const client = await connect({ bootstrap: cluster.bootstrap })
    onTestFinished(async () => await client.close())
    const description = await client.admin().describeCluster()
    expect(description.brokers.map((b) => b.brokerId)).toEqual([1, 2, 3])

    await client.admin().createTopics([{ name: 'roundtrip', numPartitions: 2, replicationFactor: 3 }])
    const producer = client.producer({ acks: 'all' })
    const sent = await producer.send({
      topic: 'roundtrip',
      records: [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
      ],
    })
    expect(sent).toHaveLength(2)
    const consumer = client.consumer({ offsetReset: 'earliest' })
    await consumer.assign([{ topic: 'roundtrip' }])
    const got: string[] = []
    for await (const m of consumer.messages({ signal: AbortSignal.timeout(20_000) })) {
      got.push(`${m.key?.toString() ?? ''}=${m.value?.toString() ?? ''}`)
      if (got.length === 2) break
    }
    expect(got.sort()).toEqual(['a=1', 'b=2'])
  })

  it('stop() closes every port and removes its temp data dir; a given data dir is kept', async () => {
    const cluster = await startCluster({ brokers: 1 })
    const ports = [cluster.metadata.port, cluster.brokers[0]!.port]
    expect(existsSync(cluster.dataDir)).toBe(true)
    await cluster.stop()
    await cluster.stop() // idempotent
    for (const p of ports) expect(await isPortFree(p)).toBe(true)
    expect(existsSync(cluster.dataDir)).toBe(false)

    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-testkit-'))
    onTestFinished(async () => await rm(dataDir, { recursive: true, force: true }))
    const kept = await startCluster({ brokers: 2, dataDir })
    await kept.stop()
    expect((await readdir(dataDir)).sort()).toEqual(['broker-1', 'broker-2', 'metadata'])
  })
})
