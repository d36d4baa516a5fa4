/**
 * Starts a whole worker: the REST server first (so the worker can advertise its URL, even on
 * port 0), then the worker joins its group. What `sluice connect` and the tests run.
 */
import { hostname } from 'node:os'
import { startRestServer, type RestServer } from './rest/rest-server.js'
import { ConnectWorker } from './worker/connect-worker.js'
import { defaultPipeline } from './worker/default-pipeline.js'
import type { WorkerConfig } from './worker/worker-config.js'

export interface RunningConnectWorker {
  readonly worker: ConnectWorker
  readonly rest: RestServer
  /** The REST API's base URL, e.g. http://127.0.0.1:8083. */
  readonly url: string
  stop(): Promise<void>
}

export async function startConnectWorker(
  config: WorkerConfig,
  rest: { host?: string; port?: number } = {},
): Promise<RunningConnectWorker> {
  const worker = new ConnectWorker(config, defaultPipeline)
  const server = await startRestServer(worker, rest)
  try {
    await worker.start(config.advertisedUrl ?? advertisedUrlOf(server, rest.host))
  } catch (err) {
    await server.close()
    throw err
  }
  return {
    worker,
    rest: server,
    url: server.url,
    stop: async () => {
      await server.close()
      await worker.stop()
    },
  }
}

/** A worker listening on every interface is reached at its host name (a pod's or container's name). */
function advertisedUrlOf(server: RestServer, host: string | undefined): string {
  return host === '0.0.0.0' || host === '::' ? `http://${hostname()}:${server.port}` : server.url
}
