/**
 * What the console's Chromium tests run against: a REAL cluster of spawned processes (metadata
 * service and a broker from the built dist/, with admin ports so the console can read their
 * metrics), the console server started on port 0 against it, and the URL a browser opens. When
 * the console server does not serve the built page itself (an older server), a test-only proxy
 * (web-proxy.ts) serves it and forwards /api; `servedBy` says which, so tests can tell.
 */
import { startConsoleServer, type ConsoleServer, type ConsoleServerOptions } from '@sluice/console'
import { spawnCluster, type SpawnedCluster } from '@sluice/testkit'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startWebProxy, type WebProxy } from './web-proxy.js'

export const WEB_ROOT = fileURLToPath(new URL('../../../packages/console/dist/web', import.meta.url))

export interface ConsoleStack {
  readonly cluster: SpawnedCluster
  readonly console: ConsoleServer
  /** Where the browser goes: the console itself, or the test proxy in front of it. */
  readonly url: string
  readonly servedBy: 'console' | 'test-proxy'
  stop(): Promise<void>
}

async function servesPage(base: string): Promise<boolean> {
  const res = await fetch(`${base}/topics`).catch(() => undefined)
  if (res === undefined || !res.ok) return false
  return (await res.text()).includes('id="app"')
}

/** Options of the console that depend on the cluster (a Connect worker on it, say); may return extra options. */
export type BeforeConsole = (cluster: SpawnedCluster) => Promise<Record<string, unknown>>

export async function startConsoleStack(
  consoleOptions: Omit<ConsoleServerOptions, 'bootstrap' | 'client' | 'port'> = {},
  beforeConsole?: BeforeConsole,
): Promise<ConsoleStack> {
  let cluster: SpawnedCluster | undefined
  let server: ConsoleServer | undefined
  let proxy: WebProxy | undefined
  const stop = async (): Promise<void> => {
    await proxy?.close().catch(() => {})
    await server?.close().catch(() => {})
    await cluster?.stop()
  }
  try {
    cluster = await spawnCluster({
      brokers: 1,
      adminPorts: true,
      metadataArgs: [
        '--group-min-session-timeout-ms',
        '500',
        '--group-initial-rebalance-delay-ms',
        '0',
        '--offsets-topic-num-partitions',
        '2',
      ],
    })
    const extra = (await beforeConsole?.(cluster)) ?? {}
    server = await startConsoleServer({
      // Sample throughput and lag often, so charts fill within seconds (a server without these
      // options, or without connectUrl, ignores them).
      ...({ metricsIntervalMs: 500, lagIntervalMs: 500, ...extra } as object),
      ...consoleOptions,
      bootstrap: cluster.bootstrap,
      port: 0,
    })
    const own = await servesPage(server.url)
    if (!own) proxy = await startWebProxy(path.resolve(WEB_ROOT), server.url)
    return {
      cluster,
      console: server,
      url: proxy?.url ?? server.url,
      servedBy: own ? 'console' : 'test-proxy',
      stop,
    }
  } catch (err) {
    await stop()
    throw err
  }
}
