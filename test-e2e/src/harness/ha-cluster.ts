/**
 * A highly available cluster of real processes for the controller-failover scenarios (issue 6):
 * a ZooKeeper ensemble (shared by the tests of a file, each cluster under its own chroot), two
 * or more metadata-service instances on it, and N brokers given every metadata endpoint.
 *
 * Timeouts are short so that a failover takes seconds: the instances' ZooKeeper sessions are
 * 4 s (ZooKeeper's minimum with its default tick), the brokers' metadata sessions 6 s, so brokers
 * re-register with a new controller before the grace period of that controller runs out.
 * Process output goes to `<dataDir>/logs/<name>.log`; close() leaves nothing running.
 */
import { createWriteStream, type WriteStream } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { connect, type Admin, type SluiceClient } from '@sluice/client'
import {
  readZooKeeperTree,
  spawnBroker,
  spawnMetadata,
  waitFor,
  type SpawnedProcess,
  type ZooKeeperHandle,
} from '@sluice/testkit'

export const INSTANCE_SESSION_MS = 4000
export const BROKER_SESSION_MS = 6000

export interface HaClusterOptions {
  readonly zk: ZooKeeperHandle
  /** Metadata-service instances, ids 3000, 3001, ... Default 2. */
  readonly instances?: number
  /** Brokers, ids 1..N. Default 3. */
  readonly brokers?: number
  readonly onEvent?: (line: string) => void
}

export interface HaCluster {
  readonly dataDir: string
  readonly chroot: string
  readonly client: SluiceClient
  readonly admin: Admin
  /** Running instances by controller id. */
  readonly instances: Map<number, SpawnedProcess>
  readonly brokers: Map<number, SpawnedProcess>
  /** The controller id the cluster reports (via a broker's metadata). */
  activeController(): Promise<number>
  /** Waits until the reported controller is a running instance other than `not`. */
  waitForController(not?: number, timeoutMs?: number): Promise<number>
  /** Every znode of this cluster with its data. */
  tree(): Promise<Map<string, string>>
  log(line: string): void
  close(): Promise<void>
}

export async function startHaCluster(options: HaClusterOptions): Promise<HaCluster> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'sluice-ha-'))
  const chroot = `/sluice-ha/${path.basename(dataDir)}`
  await mkdir(path.join(dataDir, 'logs'), { recursive: true })
  const started = Date.now()
  const log = (line: string): void => {
    ;(options.onEvent ?? console.log)(`[+${((Date.now() - started) / 1000).toFixed(1)}s] ${line}`)
  }
  const logs: WriteStream[] = []
  const onLine = (name: string) => {
    const out = createWriteStream(path.join(dataDir, 'logs', `${name}.log`))
    logs.push(out)
    return (line: string) => {
      out.write(`${line}\n`)
    }
  }
  const instances = new Map<number, SpawnedProcess>()
  const brokers = new Map<number, SpawnedProcess>()
  let client: SluiceClient | undefined
  const close = async (): Promise<void> => {
    await client?.close().catch(() => {})
    for (const p of [...brokers.values(), ...instances.values()]) {
      try {
        p.kill('SIGCONT')
      } catch {
        /* gone */
      }
    }
    await Promise.all([...brokers.values()].map(async (b) => await b.stop({ timeoutMs: 5000 })))
    await Promise.all([...instances.values()].map(async (m) => await m.stop({ timeoutMs: 5000 })))
    for (const l of logs) l.end()
    if (process.env.SLUICE_E2E_KEEP === '1') log(`kept ${dataDir}`)
    else await rm(dataDir, { recursive: true, force: true })
  }
  try {
    for (let i = 0; i < (options.instances ?? 2); i++) {
      const id = 3000 + i
      const name = `metadata-${id}`
      instances.set(
        id,
        await spawnMetadata({
          name,
          dataDir: path.join(dataDir, name),
          onLine: onLine(name),
          extraArgs: [
            '--store',
            'zookeeper',
            '--zk-connect',
            options.zk.connectString,
            '--zk-chroot',
            chroot,
            '--controller-id',
            String(id),
            '--zk-session-timeout-ms',
            String(INSTANCE_SESSION_MS),
            '--broker-session-timeout-ms',
            String(BROKER_SESSION_MS),
            '--offsets-topic-replication-factor',
            '3',
            '--group-initial-rebalance-delay-ms',
            '0',
          ],
        }),
      )
    }
    const endpoints = [...instances.values()].map((m) => m.endpoint)
    await Promise.all(
      Array.from({ length: options.brokers ?? 3 }, async (_, i) => {
        const id = i + 1
        brokers.set(
          id,
          await spawnBroker({
            brokerId: id,
            dataDir: path.join(dataDir, `broker-${id}`),
            metadataEndpoints: endpoints,
            onLine: onLine(`broker-${id}`),
            extraArgs: [
              '--session-timeout-ms',
              String(BROKER_SESSION_MS),
              '--heartbeat-interval-ms',
              '500',
              '--replica-lag-max-ms',
              '4000',
            ],
          }),
        )
      }),
    )
    client = await connect({ bootstrap: [...brokers.values()].map((b) => b.endpoint), requestTimeoutMs: 5000 })
    const admin = client.admin()
    await waitFor(async () => (await admin.describeCluster()).brokers.length === brokers.size, {
      timeoutMs: 30_000,
      description: 'every broker to register',
    })
    const activeController = async (): Promise<number> => (await admin.describeCluster()).controllerId
    log(
      `cluster up under ${chroot}: instances ${[...instances.keys()].join(', ')}, brokers ${[...brokers.keys()].join(', ')}, controller ${await activeController()}`,
    )
    return {
      dataDir,
      chroot,
      client,
      admin,
      instances,
      brokers,
      activeController,
      waitForController: async (not, timeoutMs = 30_000) => {
        let id = -1
        await waitFor(
          async () => {
            id = await activeController().catch(() => -1)
            return id !== not && instances.has(id) && instances.get(id)!.exitInfo === undefined
          },
          { timeoutMs, description: `a controller other than ${String(not)}` },
        )
        return id
      },
      tree: async () => await readZooKeeperTree(options.zk.connectString, chroot),
      log,
      close,
    }
  } catch (e) {
    await close()
    throw e
  }
}
