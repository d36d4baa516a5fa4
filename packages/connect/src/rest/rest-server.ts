/**
 * The worker's HTTP server (`rest.port`, default 8083 as Kafka Connect's): routes in
 * connect-routes.ts, errors as `{"error_code", "message"}`. Listens on the host given
 * (127.0.0.1 unless told otherwise).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ConnectWorker } from '../worker/connect-worker.js'
import { findRoute } from './connect-routes.js'
import { readJson, sendError, sendJson } from './http-io.js'

export interface RestServer {
  readonly url: string
  readonly port: number
  close(): Promise<void>
}

export async function startRestServer(
  worker: ConnectWorker,
  options: { host?: string; port?: number },
): Promise<RestServer> {
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        const url = new URL(req.url ?? '/', 'http://localhost')
        const { handler, params } = findRoute(req.method ?? 'GET', url.pathname)
        const body = req.method === 'GET' || req.method === 'DELETE' ? undefined : await readJson(req)
        const r = await handler(worker, params, body, url.searchParams)
        sendJson(res, r.status, r.body)
      } catch (err) {
        sendError(res, err)
      }
    })()
  })
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 8083, host, () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
