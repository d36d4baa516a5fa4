/**
 * The metadata service on a real ZooKeeper (issue 6, first wiring step): brokers register, a topic
 * is created, produced to and consumed from, and the tree is then visible in ZooKeeper under the
 * service's chroot in Kafka's layout (/brokers/ids, .../partitions/0/state). A restarted service
 * on the same chroot still knows the topic. When the service's own ZooKeeper session expires it
 * stops serving (METADATA_UNAVAILABLE) and tells its owner instead of running on half a view.
 *
 * Skipped with a warning when ZooKeeper is not installed; failed when CI is set.
 */
import type * as grpc from '@grpc/grpc-js'
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { connect } from '@sluice/client'
import { fromGrpcError, type wire } from '@sluice/protocol'
import {
  ZooKeeperStore,
  startMetadataServer,
  type MetadataServerHandle,
  type MetadataServerOptions,
} from '@sluice/metadata'
import { callMethod, testClient } from '@sluice/metadata/test-support'
import {
  fourLetterWord,
  startCluster,
  startZooKeeper,
  startZooKeeperProxy,
  zookeeperInstalled,
  ZOOKEEPER_INSTALL_HINT,
  type ZooKeeperHandle,
} from '@sluice/testkit'

async function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const json = (b: Buffer): Record<string, unknown> => JSON.parse(b.toString('utf8')) as Record<string, unknown>

async function globalSessions(port: number): Promise<number> {
  const m = /zk_global_sessions\s+(\d+)/.exec(await fourLetterWord(port, 'mntr'))
  return m === null ? -1 : Number(m[1])
}

if (!zookeeperInstalled()) {
  if (process.env.CI !== undefined && process.env.CI !== '') {
    describe('metadata service on ZooKeeper', () => {
      it('needs ZooKeeper installed in CI', () => {
        throw new Error(`ZooKeeper is not installed; ${ZOOKEEPER_INSTALL_HINT}`)
      })
    })
  } else {
    console.warn(
      `\n*** SKIPPING the metadata-service-on-ZooKeeper tests: ZooKeeper is not installed; ${ZOOKEEPER_INSTALL_HINT} ***\n`,
    )
    describe.skip('metadata service on ZooKeeper (ZooKeeper not installed)', () => {
      it('runs against a real ZooKeeper', () => {})
    })
  }
} else {
  describe('metadata service on ZooKeeper', () => {
    let zk: ZooKeeperHandle | undefined
    // tickTime 200 ms: session timeouts clamp to at most 4 s, so an expiry can be provoked quickly.
    beforeAll(async () => {
      zk = await startZooKeeper({ tickTimeMs: 200 })
    }, 60_000)
    afterAll(async () => {
      await zk?.stop()
    })

    const zkStore = (chroot: string): MetadataServerOptions['store'] => ({
      kind: 'zookeeper',
      connectString: zk!.connectString,
      chroot,
      sessionTimeoutMs: 4000,
    })

    it("keeps brokers, topics and partition state in ZooKeeper's layout and survives a restart on the same chroot", async () => {
      const chroot = `/sluice-test/${randomUUID()}`
      const cluster = await startCluster({ brokers: 2, metadataOptions: { store: zkStore(chroot) } })
      onTestFinished(async () => {
        await cluster.stop()
      })
      const client = await connect({ bootstrap: cluster.bootstrap })
      onTestFinished(async () => {
        await client.close()
      })
      await client.admin().createTopics([{ name: 'orders', numPartitions: 1, replicationFactor: 2 }])
      const sent = await client.producer({ acks: 'all' }).send({
        topic: 'orders',
        records: [
          { key: 'a', value: '1' },
          { key: 'b', value: '2' },
        ],
      })
      expect(sent).toHaveLength(2)
      const consumer = client.consumer({ offsetReset: 'earliest' })
      await consumer.assign([{ topic: 'orders' }])
      const got: string[] = []
      for await (const m of consumer.messages({ signal: AbortSignal.timeout(15_000) })) {
        got.push(`${m.key?.toString() ?? ''}=${m.value?.toString() ?? ''}`)
        if (got.length === 2) break
      }
      expect(got).toEqual(['a=1', 'b=2'])

      // What an operator sees with zkCli.sh under the chroot.
      const view = await ZooKeeperStore.open({ connectString: zk!.connectString, chroot })
      onTestFinished(async () => {
        await view.close()
      })
      expect((await view.children('/brokers/ids')).sort()).toEqual(['1', '2'])
      expect(json((await view.get('/brokers/ids/1')).data)).toMatchObject({
        host: '127.0.0.1',
        port: cluster.brokers[0]!.port,
      })
      const ids = json((await view.get('/brokers/ids/1')).data)
      expect(typeof ids.broker_epoch).toBe('string')
      const replicas = (json((await view.get('/brokers/topics/orders')).data).partitions as Record<string, number[]>)[
        '0'
      ]!
      expect(replicas.slice().sort()).toEqual([1, 2])
      const state = json((await view.get('/brokers/topics/orders/partitions/0/state')).data)
      expect(state).toMatchObject({
        leader: replicas[0],
        leader_epoch: expect.any(Number),
        isr: expect.arrayContaining([replicas[0]]),
      })
      expect(await view.exists('/controller')).toBeDefined()

      // Nothing lives outside the chroot: the service's tree is confined to it.
      const root = await ZooKeeperStore.open({ connectString: zk!.connectString })
      onTestFinished(async () => {
        await root.close()
      })
      expect(await root.exists('/brokers')).toBeUndefined()

      await cluster.stop()
      await until(
        async () =>
          (await view.children('/brokers/ids')).length === 0 && (await view.exists('/controller')) === undefined,
        'the ephemerals to go with the stopped cluster',
      )
      const again = await startMetadataServer({ host: '127.0.0.1', port: 0, store: zkStore(chroot) })
      onTestFinished(async () => {
        await again.stop()
      })
      const d = await callMethod<wire.DescribeTopicsResponse__Output>(testClient(again.endpoint), 'DescribeTopics', {
        names: ['orders'],
      })
      expect(d.topics[0]).toMatchObject({ name: 'orders', error_code: 0 })
      expect(d.topics[0]!.partitions.map((p) => p.replicas)).toEqual([replicas])
    }, 30_000)

    it('stops serving with METADATA_UNAVAILABLE and tells its owner when its own ZooKeeper session expires', async () => {
      const proxy = await startZooKeeperProxy(zk!.ports[0]!)
      onTestFinished(async () => {
        await proxy.close()
      })
      const chroot = `/sluice-test/${randomUUID()}`
      const baseline = await globalSessions(zk!.ports[0]!)
      const lost: Error[] = []
      let server: MetadataServerHandle | undefined = await startMetadataServer({
        // Whichever of its sessions (the store's, the election's) it learns about first fences it.
        host: '127.0.0.1',
        port: 0,
        onStoreLost: (e) => {
          lost.push(e)
        },
        onDeposed: (e) => {
          lost.push(e)
        },
        store: { kind: 'zookeeper', connectString: proxy.connectString, chroot, sessionTimeoutMs: 4000 },
      })
      onTestFinished(async () => {
        await server?.stop()
      })
      const client = testClient(server.endpoint)
      const created = await callMethod<wire.CreateTopicsResponse__Output>(client, 'CreateTopics', {
        topics: [{ name: 'before', num_partitions: 1, replication_factor: 1 }],
      })
      expect(created.topics[0]!.name).toBe('before') // answered (no brokers: an error code, not a failure)

      proxy.cut()
      // ZooKeeper (still running) expires the store's and the controller's sessions on its own.
      await until(
        async () => (await globalSessions(zk!.ports[0]!)) <= baseline,
        'ZooKeeper to expire the cut-off sessions',
        20_000,
      )
      expect(lost).toEqual([])
      proxy.restore()
      await until(() => lost.length === 1, 'the service to learn its session expired', 20_000)
      expect(lost[0]!.message).toMatch(/session expired/)
      const err = await callMethod(client, 'DescribeCluster', {}).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(err).toBeDefined()
      expect(fromGrpcError(err as grpc.ServiceError).code).toBe('METADATA_UNAVAILABLE')
      await server.stop()
      server = undefined
    }, 30_000)
  })
}
