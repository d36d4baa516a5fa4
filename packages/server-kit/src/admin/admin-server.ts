/**
 * The admin HTTP endpoint every Sluice process serves on its own port (`--admin-port`), apart
 * from the gRPC port so that probes and scrapes never queue behind data traffic:
 *
 *   GET /metrics  Prometheus text format from the process's registry
 *   GET /healthz  200 while the process is alive: answering at all proves the event loop turns
 *                 (a blocked loop leaves the probe to time out, which is what a liveness probe
 *                 should see)
 *   GET /readyz   200 `{"ready":true}` when the process can serve, else 503 with
 *                 `{"ready":false,"reason":"..."}`; what "able to serve" means is the caller's
 *                 `readiness` function
 *
 * HEAD is answered like GET without a body; other methods on these paths get 405, every other
 * path 404. Plain node:http, no framework: three routes do not need one. Closing drops idle
 * keep-alive connections (a Prometheus scraper holds one open) so stop() never waits on them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface Readiness {
  readonly ready: boolean
  /** Why the process is not ready; shown in the 503 body. */
  readonly reason?: string
}

/** What /metrics serves: a prom-client Registry fits. */
export interface MetricsSource {
  readonly contentType: string
  metrics(): Promise<string>
}

export interface AdminServerOptions {
  readonly host: string
  /** 0 = ephemeral; the bound port is `AdminServer.port`. */
  readonly port: number
  readonly metrics: MetricsSource
  readonly readiness: () => Readiness
  /** Called when producing /metrics failed (the scrape gets a 500). */
  readonly onError?: (err: unknown) => void
}

export interface AdminServer {
  readonly port: number
  close(): Promise<void>
}

const JSON_TYPE = 'application/json; charset=utf-8'
const TEXT_TYPE = 'text/plain; charset=utf-8'

export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const server = createServer((req, res) => {
    route(options, req, res)
  })
  // Probes should never hold the process open or pile up: short timeouts, no request bodies.
  server.requestTimeout = 10_000
  server.headersTimeout = 5_000
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => {
      reject(err)
    }
    server.once('error', onError)
    server.listen(options.port, options.host, () => {
      server.off('error', onError)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  let closing: Promise<void> | undefined
  return {
    port,
    close: async () => {
      closing ??= closeServer(server)
      await closing
    },
  }
}

async function closeServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve())
    server.closeIdleConnections()
    // A scrape still being answered gets a moment; a stuck one does not delay the stop.
    setTimeout(() => server.closeAllConnections(), 1000).unref()
  })
}

function route(options: AdminServerOptions, req: IncomingMessage, res: ServerResponse): void {
  const path = (req.url ?? '/').split('?', 1)[0]
  const handler =
    path === '/metrics' ? serveMetrics : path === '/healthz' ? serveHealth : path === '/readyz' ? serveReady : undefined
  if (handler === undefined) {
    send(req, res, 404, TEXT_TYPE, 'not found: the admin endpoints are /metrics, /healthz and /readyz\n')
    return
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD')
    send(req, res, 405, TEXT_TYPE, 'method not allowed\n')
    return
  }
  handler(options, req, res)
}

function serveHealth(_options: AdminServerOptions, req: IncomingMessage, res: ServerResponse): void {
  send(req, res, 200, TEXT_TYPE, 'ok\n')
}

function serveReady(options: AdminServerOptions, req: IncomingMessage, res: ServerResponse): void {
  let r: Readiness
  try {
    r = options.readiness()
  } catch (err) {
    r = { ready: false, reason: `readiness check failed: ${(err as Error)?.message ?? String(err)}` }
  }
  const body = r.ready ? { ready: true } : { ready: false, reason: r.reason ?? 'not ready' }
  send(req, res, r.ready ? 200 : 503, JSON_TYPE, `${JSON.stringify(body)}\n`)
}

function serveMetrics(options: AdminServerOptions, req: IncomingMessage, res: ServerResponse): void {
  options.metrics.metrics().then(
    (text) => send(req, res, 200, options.metrics.contentType, text),
    (err: unknown) => {
      options.onError?.(err)
      send(req, res, 500, TEXT_TYPE, `collecting metrics failed: ${(err as Error)?.message ?? String(err)}\n`)
    },
  )
}

function send(req: IncomingMessage, res: ServerResponse, status: number, contentType: string, body: string): void {
  res.statusCode = status
  res.setHeader('Content-Type', contentType)
  res.setHeader('Content-Length', Buffer.byteLength(body))
  res.setHeader('Cache-Control', 'no-store')
  res.end(req.method === 'HEAD' ? undefined : body)
}
