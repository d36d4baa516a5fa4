/**
 * startConsoleServer: the console's HTTP server on node:http. Paths under /api are the JSON
 * API; every other path is the front end's files (http/static-assets.ts). Every API request
 * goes through the same gate before its route runs: the access token (401; only the open
 * GET /api/session is exempt), then the route (404/405), then the body, then read-only mode
 * for routes that change the cluster (403). The server uses the client it is given (and leaves
 * it open on close) or connects to `bootstrap` itself (and closes that client on close). It
 * listens on 127.0.0.1 unless `host` says otherwise.
 */
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect, type Producer, type SluiceClient } from '@sluice/client'
import { ConsoleError, errorAnswer } from './errors.js'
import { checkToken, checkWrite, type AccessPolicy } from './http/access.js'
import { readJsonBody, sendJson } from './http/http-io.js'
import type { MatchedRoute } from './http/router.js'
import { Router } from './http/router.js'
import { DEFAULT_WEB_ROOT, serveStatic } from './http/static-assets.js'
import { clusterRoutes } from './routes/cluster-routes.js'
import { connectRoutes, parseConnectUrl } from './routes/connect-routes.js'
import { groupRoutes } from './routes/group-routes.js'
import { messageRoutes } from './routes/message-routes.js'
import { sessionRoutes } from './routes/session-routes.js'
import { streamsRoutes } from './routes/streams-routes.js'
import { tailRoutes } from './routes/tail-routes.js'
import { topicRoutes } from './routes/topic-routes.js'
import { LagHistory } from './sampling/lag-history.js'
import { LogSizes } from './sampling/log-sizes.js'
import { ThroughputSampler } from './sampling/throughput-sampler.js'

export interface ConsoleServerOptions {
  /** A connected client to use; or give `bootstrap` and the console connects (and closes) its own. */
  readonly client?: SluiceClient
  readonly bootstrap?: string[]
  /** Default 8080; 0 picks a free port. */
  readonly port?: number
  /** Default 127.0.0.1. */
  readonly host?: string
  /** Refuse every route that would change the cluster (403). */
  readonly readOnly?: boolean
  /** Require `Authorization: Bearer <token>` on every API route (401). */
  readonly token?: string
  /** A Sluice Connect worker's REST URL; /api/connect/** is proxied to it (404 without one). */
  readonly connectUrl?: string
  /** The built front end; default packages/console/dist/web. */
  readonly webRoot?: string
  /** How often the overview's throughput is sampled while someone looks (default 5 s). */
  readonly metricsIntervalMs?: number
  /** How often looked-at groups' lag is sampled (default 5 s). */
  readonly lagIntervalMs?: number
  /** Comment lines on an idle live tail (default 15 s). */
  readonly tailHeartbeatMs?: number
  /** Records a second a live tail sends at most; the rest are counted as skipped (default 200). */
  readonly tailMaxPerSecond?: number
}

export interface ConsoleServer {
  /** Base URL, e.g. http://127.0.0.1:8080 (the API is under /api). */
  readonly url: string
  readonly port: number
  /** Live tails open now (each holds a consumer until its browser goes away). */
  readonly openStreams: number
  close(): Promise<void>
}

/** The console's version, from its package.json (one level above src/ and dist/ alike). */
function consoleVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string }
    return pkg.version ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

const isApiPath = (pathname: string): boolean => pathname === '/api' || pathname.startsWith('/api/')

export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  if (options.client === undefined && (options.bootstrap === undefined || options.bootstrap.length === 0))
    throw new TypeError('startConsoleServer needs a client or a bootstrap list')
  if (options.token !== undefined && options.token.trim() === '')
    throw new TypeError('startConsoleServer: an empty token would let anyone in; omit it or give one')
  const connectUrl = options.connectUrl === undefined ? undefined : parseConnectUrl(options.connectUrl)
  const ownsClient = options.client === undefined
  const client =
    options.client ??
    (await connect({ bootstrap: options.bootstrap!, clientId: 'sluice-console', requestTimeoutMs: 30_000 }))
  const policy: AccessPolicy = { readOnly: options.readOnly === true, token: options.token }
  const throughput = new ThroughputSampler(client, options.metricsIntervalMs ?? 5_000)
  const lagHistory = new LagHistory(client, { intervalMs: options.lagIntervalMs ?? 5_000 })
  let producer: Producer | undefined
  const streams = new Set<Promise<void>>()
  const router = new Router([
    ...sessionRoutes({
      readOnly: policy.readOnly,
      tokenRequired: policy.token !== undefined,
      connect: connectUrl !== undefined,
      version: consoleVersion(),
    }),
    ...clusterRoutes(throughput),
    ...topicRoutes(new LogSizes(client)),
    ...groupRoutes(lagHistory),
    ...streamsRoutes,
    ...messageRoutes(() => {
      producer ??= client.producer({ acks: 'all' })
      return producer
    }),
    ...tailRoutes({ heartbeatMs: options.tailHeartbeatMs ?? 15_000, maxPerSecond: options.tailMaxPerSecond ?? 200 }),
    ...connectRoutes(connectUrl),
  ])
  const webRoot = options.webRoot ?? DEFAULT_WEB_ROOT

  const serveApi = async (req: IncomingMessage, res: ServerResponse, url: URL, signal: AbortSignal) => {
    const method = req.method ?? 'GET'
    let matched: MatchedRoute | undefined
    let unmatched: unknown
    try {
      matched = router.find(method, url.pathname)
    } catch (err) {
      unmatched = err
    }
    // The token comes first, so without it nobody learns even which routes exist.
    if (matched?.route.open !== true)
      checkToken(policy, req, matched?.route.tokenInQuery === true ? url.searchParams.get('access_token') : undefined)
    if (matched === undefined) throw unmatched
    const { route, params } = matched
    const body = method === 'GET' || method === 'DELETE' ? undefined : await readJsonBody(req)
    const request = { client, params, query: url.searchParams, body, signal }
    const mutates = typeof route.mutates === 'function' ? route.mutates(request) : route.mutates
    checkWrite(policy, mutates, `${method} ${url.pathname}`)
    const answer = await route.handle(request)
    if (!('stream' in answer)) {
      sendJson(res, answer.status, answer.body)
      return
    }
    // Held so close() can wait for open tails to close their consumers before the client goes.
    const streaming = answer.stream(res, signal)
    streams.add(streaming)
    try {
      await streaming
    } finally {
      streams.delete(streaming)
    }
  }

  const server = createServer((req, res) => {
    const gone = new AbortController()
    // The response closing before it was sent means the caller went away: stop its scan.
    res.once('close', () => {
      if (!res.writableFinished) gone.abort()
    })
    let url: URL
    try {
      url = new URL(req.url ?? '/', 'http://console.invalid')
    } catch {
      const a = errorAnswer(new ConsoleError('BAD_REQUEST', 'the request path is not a valid URL'))
      sendJson(res, a.status, a.body)
      return
    }
    const work = isApiPath(url.pathname) ? serveApi(req, res, url, gone.signal) : serveStatic(req, res, webRoot)
    work.catch((err: unknown) => {
      const a = errorAnswer(err)
      if (!res.headersSent) sendJson(res, a.status, a.body)
      else res.destroy()
    })
  })
  const host = options.host ?? '127.0.0.1'
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port ?? 8080, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (err) {
    throughput.close()
    lagHistory.close()
    if (ownsClient) await client.close().catch(() => {})
    throw err
  }
  const port = (server.address() as AddressInfo).port
  const urlHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  return {
    url: `http://${urlHost}:${port}`,
    port,
    get openStreams() {
      return streams.size
    },
    close: async () => {
      closing ??= (async () => {
        throughput.close()
        lagHistory.close()
        await new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
        await Promise.allSettled([...streams])
        await producer?.close().catch(() => {})
        if (ownsClient) await client.close().catch(() => {})
      })()
      await closing
    },
  }
}
