/**
 * startConsoleServer: the console's HTTP server on node:http. Every request goes through the
 * same gate before its route runs: the access token (401), then the route (404/405), then the
 * body, then read-only mode for routes that change the cluster (403). The server uses the
 * client it is given (and leaves it open on close) or connects to `bootstrap` itself (and
 * closes that client on close). It listens on 127.0.0.1 unless `host` says otherwise.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect, type Producer, type SluiceClient } from '@sluice/client'
import { errorAnswer } from './errors.js'
import { checkToken, checkWrite, type AccessPolicy } from './http/access.js'
import { readJsonBody, sendJson } from './http/http-io.js'
import type { Route } from './http/route.js'
import { Router } from './http/router.js'
import { clusterRoutes } from './routes/cluster-routes.js'
import { groupRoutes } from './routes/group-routes.js'
import { messageRoutes } from './routes/message-routes.js'
import { topicRoutes } from './routes/topic-routes.js'

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
  /** Require `Authorization: Bearer <token>` on every route (401). */
  readonly token?: string
}

export interface ConsoleServer {
  /** Base URL, e.g. http://127.0.0.1:8080 (the API is under /api). */
  readonly url: string
  readonly port: number
  close(): Promise<void>
}

export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  if (options.client === undefined && (options.bootstrap === undefined || options.bootstrap.length === 0))
    throw new TypeError('startConsoleServer needs a client or a bootstrap list')
  if (options.token !== undefined && options.token.trim() === '')
    throw new TypeError('startConsoleServer: an empty token would let anyone in; omit it or give one')
  const ownsClient = options.client === undefined
  const client =
    options.client ??
    (await connect({ bootstrap: options.bootstrap!, clientId: 'sluice-console', requestTimeoutMs: 30_000 }))
  const policy: AccessPolicy = { readOnly: options.readOnly === true, token: options.token }
  let producer: Producer | undefined
  const routes: Route[] = [
    ...clusterRoutes,
    ...topicRoutes,
    ...groupRoutes,
    ...messageRoutes(() => {
      producer ??= client.producer({ acks: 'all' })
      return producer
    }),
  ]
  const router = new Router(routes)

  const serve = async (req: IncomingMessage, res: ServerResponse, signal: AbortSignal): Promise<void> => {
    checkToken(policy, req)
    const url = new URL(req.url ?? '/', 'http://console.invalid')
    const method = req.method ?? 'GET'
    const { route, params } = router.find(method, url.pathname)
    const body = method === 'GET' || method === 'DELETE' ? undefined : await readJsonBody(req)
    const request = { client, params, query: url.searchParams, body, signal }
    const mutates = typeof route.mutates === 'function' ? route.mutates(request) : route.mutates
    checkWrite(policy, mutates, `${method} ${url.pathname}`)
    const answer = await route.handle(request)
    sendJson(res, answer.status, answer.body)
  }

  const server = createServer((req, res) => {
    const gone = new AbortController()
    // The response closing before it was sent means the caller went away: stop its scan.
    res.once('close', () => {
      if (!res.writableFinished) gone.abort()
    })
    serve(req, res, gone.signal).catch((err: unknown) => {
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
    if (ownsClient) await client.close().catch(() => {})
    throw err
  }
  const port = (server.address() as AddressInfo).port
  const urlHost = host.includes(':') ? `[${host}]` : host
  let closing: Promise<void> | undefined
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: async () => {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
        await producer?.close().catch(() => {})
        if (ownsClient) await client.close().catch(() => {})
      })()
      await closing
    },
  }
}
