/**
 * The Connect int tests' view of an in-process worker's REST API: `http(method, path, body)`
 * bound to the worker (started in a `beforeAll`, so the URL is read at each call), and the
 * waits those tests repeat.
 */
import { startConnectWorker, type RunningConnectWorker, type WorkerConfig } from '@sluice/connect'
import { connectRest, type RestAnswer } from '@sluice/testkit'
import { until, type RealCluster } from '../client/real-cluster.js'
import { quiet } from '../client/streams-cluster.js'

import type { RestJson as Json } from '@sluice/testkit'

export type { RestAnswer, RestJson as Json } from '@sluice/testkit'

export type Http = (method: string, path: string, body?: unknown) => Promise<RestAnswer>

/** REST calls to whichever worker `current()` returns at the time of the call. */
export function workerHttp(current: () => RunningConnectWorker): Http {
  return (method, path, body) => connectRest(current().url, method, path, body)
}

/** Waits until task `task` of connector `name` reports RUNNING; the error shows the last status. */
export async function untilTaskRunning(http: Http, name: string, task = 0, timeoutMs = 20_000): Promise<void> {
  let last: unknown
  try {
    await until(
      `task ${task} of ${name} running`,
      async () => {
        last = (await http('GET', `/connectors/${name}/status`)).body
        return (last as Json).tasks?.[task]?.state === 'RUNNING'
      },
      timeoutMs,
    )
  } catch (err) {
    throw new Error(`${(err as Error).message}; last status ${JSON.stringify(last)}`)
  }
}

/**
 * A worker of group `groupId` on `cluster`, with the int tests' settings: quiet, one-partition
 * internal topics, a 2 s session and fast heartbeats, REST on a free port. `extra` overrides.
 */
export async function startTestWorker(
  cluster: RealCluster,
  groupId: string,
  extra: Partial<WorkerConfig> = {},
): Promise<RunningConnectWorker> {
  return await startConnectWorker(
    {
      client: cluster.client,
      groupId,
      logger: quiet,
      offsetStoragePartitions: 1,
      statusStoragePartitions: 1,
      sessionTimeoutMs: 2000,
      heartbeatIntervalMs: 200,
      ...extra,
    },
    { port: 0 },
  )
}
