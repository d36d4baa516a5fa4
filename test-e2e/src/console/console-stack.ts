/**
 * What the console's Chromium tests run against: a REAL cluster of spawned processes (metadata
 * service and a broker from the built dist/, with admin ports so the console can read their
 * metrics), the console server started on port 0 against it, and the URL a browser opens: the
 * console serves the built page itself (packages/console/dist/web), and the stack refuses to
 * start when it does not, so no test can pass against a page that was never built.
 */
import { startConsoleServer, type ConsoleServer, type ConsoleServerOptions } from '@sluice/console'
import { spawnCluster, type SpawnedCluster } from '@sluice/testkit'
import { fileURLToPath } from 'node:url'

export const WEB_ROOT = fileURLToPath(new URL('../../../packages/console/dist/web', import.meta.url))

export interface ConsoleStack {
  readonly cluster: SpawnedCluster
  readonly console: ConsoleServer
  /** Where the browser goes. */
  readonly url: string
  stop(): Promise<void>
}

async function servesPage(base: string): Promise<boolean> {
  const res = await fetch(`${base}/topics`).catch(() => undefined)
  if (res === undefined || !res.ok) return false
  return (await res.text()).includes('id="app"')
}

/** Options of the console that depend on the cluster (a Connect worker on it, say); may return extra options. */
export type BeforeConsole = (cluster: SpawnedCluster) => Promise<Partial<ConsoleServerOptions>>

export async function startConsoleStack(
  consoleOptions: Omit<ConsoleServerOptions, 'bootstrap' | 'client' | 'port'> = {},
  beforeConsole?: BeforeConsole,
): Promise<ConsoleStack> {
  let cluster: SpawnedCluster | undefined
  let server: ConsoleServer | undefined
  const stop = async (): Promise<void> => {
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
      // Sample throughput and lag often, so charts fill within seconds.
      metricsIntervalMs: 500,
      lagIntervalMs: 500,
      ...extra,
      ...consoleOptions,
      bootstrap: cluster.bootstrap,
      port: 0,
    })
    if (!(await servesPage(server.url)))
      throw new Error(`the console at ${server.url} does not serve the built page: build it first (pnpm run build)`)
    return { cluster, console: server, url: server.url, stop }
  } catch (err) {
    await stop()
    throw err
  }
}
