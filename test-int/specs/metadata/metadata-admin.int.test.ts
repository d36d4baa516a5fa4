/**
 * The metadata service's admin endpoint in process: readiness and controller metrics with the
 * embedded store, and with two instances sharing a real ZooKeeper (active and standby both ready,
 * only one active; neither ready once ZooKeeper is unreachable).
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { startMetadataServerInternal, type MetadataServerHandle } from '@sluice/metadata/internal'
import { startZooKeeper, waitFor, zookeeperInstalled, type ZooKeeperHandle } from '@sluice/testkit'

async function get(port: number, p: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}${p}`)
  return { status: res.status, body: await res.text() }
}

function sample(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)
  return m === null ? undefined : Number(m[1])
}

describe('metadata admin endpoint (embedded store)', () => {
  it('listens before serving, is ready with a running controller, and closes on stop', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-meta-admin-'))
    onTestFinished(async () => {
      await rm(dataDir, { recursive: true, force: true })
    })
    let announced: number | undefined
    const handle = await startMetadataServerInternal({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      adminPort: 0,
      onAdminListening: (p) => {
        announced = p
      },
    })
    onTestFinished(async () => {
      await handle.stop()
    })
    expect(handle.adminPort).toBeGreaterThan(0)
    expect(announced).toBe(handle.adminPort)
    expect(await get(handle.adminPort!, '/readyz')).toEqual({ status: 200, body: '{"ready":true}\n' })
    const text = (await get(handle.adminPort!, '/metrics')).body
    expect(sample(text, 'sluice_controller_active')).toBe(1)
    expect(sample(text, 'sluice_controller_epoch')).toBeGreaterThanOrEqual(1)
    expect(sample(text, 'sluice_live_brokers')).toBe(0)
    await handle.stop()
    await expect(fetch(`http://127.0.0.1:${handle.adminPort!}/healthz`)).rejects.toThrow()
  })

  it('has no admin server without adminPort', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-meta-admin-'))
    onTestFinished(async () => {
      await rm(dataDir, { recursive: true, force: true })
    })
    const handle = await startMetadataServerInternal({ host: '127.0.0.1', port: 0, dataDir })
    onTestFinished(async () => {
      await handle.stop()
    })
    expect(handle.adminPort).toBeUndefined()
  })
})

describe.skipIf(!zookeeperInstalled())('metadata admin endpoint (ZooKeeper, two instances)', () => {
  let zk: ZooKeeperHandle | undefined
  beforeAll(async () => {
    zk = await startZooKeeper({ tickTimeMs: 200 })
  }, 60_000)
  afterAll(async () => {
    await zk?.stop()
  })

  it('reports the active and the standby as ready, only one as active, and neither once ZooKeeper is gone', async () => {
    const chroot = `/sluice-admin-test/${randomUUID()}`
    const start = async (controllerId: number): Promise<MetadataServerHandle> => {
      const h = await startMetadataServerInternal({
        host: '127.0.0.1',
        port: 0,
        adminPort: 0,
        controllerId,
        store: { kind: 'zookeeper', connectString: zk!.connectString, chroot, sessionTimeoutMs: 4000 },
      })
      onTestFinished(async () => {
        await h.stop()
      })
      return h
    }
    const a = await start(3000)
    const b = await start(3001)
    for (const h of [a, b])
      expect(await get(h.adminPort!, '/readyz')).toEqual({ status: 200, body: '{"ready":true}\n' })
    const active = async (h: MetadataServerHandle): Promise<number | undefined> =>
      sample((await get(h.adminPort!, '/metrics')).body, 'sluice_controller_active')
    expect([await active(a), await active(b)]).toEqual([1, 0])

    await zk!.kill(0)
    for (const h of [a, b]) {
      const r = await waitFor(
        async () => {
          const x = await get(h.adminPort!, '/readyz')
          return x.status === 503 ? x : undefined
        },
        { timeoutMs: 10_000, intervalMs: 100, description: 'not ready without ZooKeeper' },
      )
      expect(JSON.parse(r.body).reason).toMatch(/ZooKeeper|fenced|controller/)
      expect((await get(h.adminPort!, '/healthz')).status).toBe(200)
    }
    await zk!.restart(0)
  }, 60_000)
})
