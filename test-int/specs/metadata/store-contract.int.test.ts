import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import zookeeper from 'node-zookeeper-client'
import type { Client } from 'node-zookeeper-client'
import {
  EmbeddedStore,
  ZooKeeperStore,
  type MetadataStore,
  type ZooKeeperStoreOptions,
} from '@sluice/metadata/internal'
import {
  freePorts,
  startZooKeeper,
  startZooKeeperProxy,
  zookeeperInstalled,
  ZOOKEEPER_INSTALL_HINT,
  type ZooKeeperHandle,
  type ZooKeeperProxy,
} from '@sluice/testkit'
import { codeOf, describeMetadataStoreContract, until } from '../../src/metadata/store-contract.js'

describeMetadataStoreContract('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-contract-'))
  let store = await EmbeddedStore.open({ dataDir: dir })
  return {
    store,
    reopen: async () => {
      await store.close()
      store = await EmbeddedStore.open({ dataDir: dir })
      return store
    },
    cleanup: async () => {
      await store.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
})

let zk: ZooKeeperHandle | undefined
let chroots = 0

function zkOptions(extra: Partial<ZooKeeperStoreOptions> = {}): ZooKeeperStoreOptions {
  if (zk === undefined) throw new Error('ZooKeeper did not start')
  return {
    connectString: zk.connectString,
    chroot: `/contract/t${++chroots}`,
    sessionTimeoutMs: 10_000,
    connectTimeoutMs: 10_000,
    ...extra,
  }
}

async function openZk(extra: Partial<ZooKeeperStoreOptions> = {}): Promise<ZooKeeperStore> {
  const store = await ZooKeeperStore.open(zkOptions(extra))
  onTestFinished(async () => {
    await store.close()
  })
  return store
}

/**
 * Makes ZooKeeper end a partitioned client's session at once, as its expiry would: another client
 * takes the session over (id + password) and closes it. The victim must be cut off (proxy) while
 * this happens, else it reconnects at once and wins its session back before the close.
 */
async function closeSessionBehindItsBack(connectString: string, victim: Client): Promise<void> {
  const thief = zookeeper.createClient(connectString, {
    sessionId: victim.getSessionId(),
    sessionPassword: victim.getSessionPassword(),
    sessionTimeout: 10_000,
  } as never)
  await withDeadline(
    new Promise<void>((resolve) => {
      thief.once('connected', () => resolve())
      thief.connect()
    }),
    'the session takeover',
  )
  await withDeadline(
    new Promise<void>((resolve) => {
      thief.once('disconnected', () => resolve())
      thief.close()
    }),
    'closing the taken-over session',
  )
}

async function withDeadline(p: Promise<void>, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    p,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), 10_000)
    }),
  ])
  clearTimeout(timer)
}

async function proxy(): Promise<ZooKeeperProxy> {
  const p = await startZooKeeperProxy(zk!.ports[0]!)
  onTestFinished(async () => {
    await p.close()
  })
  return p
}

const b = (s: string): Buffer => Buffer.from(s)

if (!zookeeperInstalled()) {
  if (process.env.CI !== undefined && process.env.CI !== '') {
    describe('MetadataStore contract: zookeeper', () => {
      it('needs ZooKeeper installed', () => {
        throw new Error(`ZooKeeper is not installed, so the zookeeper backend is untested; ${ZOOKEEPER_INSTALL_HINT}`)
      })
    })
  } else {
    console.warn(
      `\n*** SKIPPING the zookeeper MetadataStore tests: ZooKeeper is not installed; ${ZOOKEEPER_INSTALL_HINT} ***\n`,
    )
    describe.skip('MetadataStore contract: zookeeper (ZooKeeper not installed)', () => {
      it('runs against a real ZooKeeper', () => {})
    })
  }
} else {
  describe('zookeeper backend', () => {
    beforeAll(async () => {
      zk = await startZooKeeper()
    }, 60_000)
    afterAll(async () => {
      await zk?.stop()
    })

    describeMetadataStoreContract('zookeeper', async () => {
      const options = zkOptions()
      let store: MetadataStore = await ZooKeeperStore.open(options)
      return {
        store,
        reopen: async () => {
          await store.close()
          store = await ZooKeeperStore.open(options)
          return store
        },
        cleanup: async () => {
          await store.close()
        },
      }
    })

    describe('ZooKeeper specifics', () => {
      it('keeps clusters apart by chroot and creates the chroot', async () => {
        const a = await openZk()
        const deep = `/contract/deep/t${chroots}`
        const c = await openZk({ chroot: `${deep}/x` })
        await a.create('/brokers', b('a'))
        await c.create('/brokers', b('c'))
        expect((await a.get('/brokers')).data.toString()).toBe('a')
        expect((await c.get('/brokers')).data.toString()).toBe('c')
        const root = await openZk({ chroot: '/' })
        expect(await root.children(deep)).toEqual(['x'])
        expect(await codeOf(ZooKeeperStore.open({ connectString: `${zk!.connectString}/x` }))).toBe('INVALID_ARGUMENT')
      })

      it('survives a partition shorter than its own session; a session whose ZooKeeper timeout passed expires', async () => {
        const p = await proxy()
        const chroot = zkOptions().chroot!
        const s = await openZk({
          connectString: p.connectString,
          chroot,
          sessionTimeoutMs: 30_000,
          operationTimeoutMs: 20_000,
        })
        const watcher = await openZk({ chroot }) // not behind the proxy
        await s.create('/keep', b(''))
        const expired: string[] = []
        const sid = await s.createSession(4_000, (id) => expired.push(id)) // ZooKeeper's minimum
        await s.create('/keep/e', b(''), { mode: 'ephemeral', sessionId: sid })
        let changed = false
        await s.watchData('/keep', () => {
          changed = true
        })
        // Touches are local, so the lease holds: only ZooKeeper can end the session here.
        const keepAlive = setInterval(() => {
          s.touchSession(sid).catch(() => {})
        }, 200)
        onTestFinished(() => {
          clearInterval(keepAlive)
        })
        p.cut()
        await until(
          async () => (await watcher.exists('/keep/e')) === undefined,
          'ZooKeeper to expire the partitioned session',
          20_000,
        )
        await watcher.set('/keep', b('changed while cut off'), -1)
        expect(expired).toEqual([]) // nobody could tell the store yet
        p.restore()
        await until(
          () => expired.length === 1 && changed,
          'the expiry and the missed change to reach the store',
          20_000,
        )
        clearInterval(keepAlive)
        expect(expired).toEqual([sid])
        expect(await codeOf(s.touchSession(sid))).toBe('META_SESSION_EXPIRED')
        expect((await s.get('/keep')).data.toString()).toBe('changed while cut off')
      })

      it('refuses every call and tells its owner once its own session expired', async () => {
        const p = await proxy()
        let told = 0
        const s = await openZk({
          connectString: p.connectString,
          onSessionExpired: () => {
            told += 1
          },
        })
        await s.create('/n', b(''))
        await s.watchData('/n', () => {
          throw new Error('a watch of an expired store fired')
        })
        p.cut()
        await closeSessionBehindItsBack(zk!.connectString, s.zkClient()!)
        p.restore()
        await until(() => told === 1, 'onSessionExpired')
        const err = await s.get('/n').catch((e: unknown) => e)
        expect([(err as { code?: string }).code, (err as { retriable?: boolean }).retriable]).toEqual([
          'METADATA_UNAVAILABLE',
          true,
        ])
        expect(await codeOf(s.createSession(10_000))).toBe('METADATA_UNAVAILABLE')
        expect(told).toBe(1)
      })

      it('fails open with METADATA_UNAVAILABLE when nothing answers', async () => {
        const [port] = await freePorts(1)
        const err = await ZooKeeperStore.open({ connectString: `127.0.0.1:${port!}`, connectTimeoutMs: 300 }).catch(
          (e: unknown) => e,
        )
        expect((err as { code?: string }).code).toBe('METADATA_UNAVAILABLE')
        expect((err as Error).message).toContain(`127.0.0.1:${port!}`)
      })

      it('rides out a server restart: sessions, ephemerals and watches survive', async () => {
        const s = await openZk()
        await s.create('/keep', b(''))
        const sid = await s.createSession(60_000)
        await s.create('/keep/e', b(''), { mode: 'ephemeral', sessionId: sid })
        let changed = false
        await s.watchData('/keep', () => {
          changed = true
        })
        await zk!.restart(0)
        expect(await s.set('/keep', b('after'), 0)).toBe(1) // waits for the reconnect
        await until(() => changed, 'the watch set before the restart')
        expect((await s.get('/keep/e')).ephemeralOwner).toBe(sid)
        await s.touchSession(sid)
      })
    })
  })

  describe('zookeeper ensemble', () => {
    it('starts 3 servers with a leader, and the store fails over when one dies', async () => {
      const ens = await startZooKeeper({ ensemble: 3 })
      onTestFinished(async () => {
        await ens.stop()
      })
      const modes = await Promise.all([0, 1, 2].map(async (i) => await ens.mode(i)))
      expect(modes.filter((m) => m === 'leader')).toHaveLength(1)
      expect(modes.filter((m) => m === 'follower')).toHaveLength(2)
      const s = await ZooKeeperStore.open({
        connectString: ens.connectString,
        chroot: '/cluster-a',
        sessionTimeoutMs: 10_000,
      })
      onTestFinished(async () => {
        await s.close()
      })
      const sid = await s.createSession(60_000)
      await s.create('/e', b(''), { mode: 'ephemeral', sessionId: sid })
      await s.create('/p', b('0'))
      await ens.kill(modes.indexOf('leader'))
      expect(ens.pids.filter((p) => p !== undefined)).toHaveLength(2)
      await until(
        async () => (await codeOf(s.set('/p', b('1'), -1))) === 'NO_ERROR',
        'a write after the leader died',
        20_000,
      )
      expect((await s.get('/e')).ephemeralOwner).toBe(sid)
    })
  })
}
