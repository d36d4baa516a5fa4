/**
 * The optional HTTP endpoint for interactive queries. Kafka Streams leaves the transport to the
 * user; this gives one that routes for you. Start it first (so its port is known), give its
 * `endpoint` to the app as `applicationServer`, then serve the app:
 *
 *   const queries = await startQueryServer({ host: '127.0.0.1', port: 0 })
 *   const app = new StreamsApp(topology, { ...config, applicationServer: queries.endpoint })
 *   queries.serve(app, { stores: { counts: {} } })
 *
 * Routes (JSON; errors as `{"error_code": <http status>, "message": ...}`):
 * - GET /stores/{store}/keys/{key}: the value, from this instance when it holds the key, else
 *   forwarded once to the instance metadataForKey names (a forwarded request is never forwarded
 *   again, so two instances with different views cannot bounce it); 404 when no value.
 * - GET /stores/{store}/local: every entry this instance holds.
 * - GET /stores/{store}/metadata/{key}: where the key lives (KeyQueryMetadata).
 * - GET /metrics: the app's per-task metrics in Prometheus' text format (metrics-text.ts).
 * Only stores named in `serve()` are served; a key in the URL becomes the store's key through
 * that store's `parseKey` (default: the string itself). Only GET is answered.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Serde } from '../api/serde.js'
import { isStreamsError } from '../errors.js'
import type { ReadOnlyKeyValueStore } from '../state/store-types.js'
import type { KeyQueryMetadata } from './interactive-queries.js'
import { metricsText } from './metrics-text.js'
import type { StreamsAppMetrics } from './streams-app.js'

/** What the server needs of a StreamsApp. */
export interface QueryableApp {
  /** Present on a StreamsApp: GET /metrics then serves its metrics (metrics-text.ts). */
  readonly applicationId?: string
  metrics?(): StreamsAppMetrics
  store<K, V>(name: string): ReadOnlyKeyValueStore<K, V>
  metadataForKey<K>(name: string, key: K, keySerde: Serde<K>): KeyQueryMetadata
}

export interface ServedStore {
  /** URL key to store key. Default: the string as it is. */
  readonly parseKey?: (raw: string) => unknown
  /** The store's key serde, to place the key (metadataForKey). Default: UTF-8 of the URL key. */
  readonly keySerde?: Serde<unknown>
}

export interface QueryServer {
  /** `host:port` to give the app as applicationServer. */
  readonly endpoint: string
  serve(app: QueryableApp, options: { readonly stores: Readonly<Record<string, ServedStore>> }): void
  close(): Promise<void>
}

const FORWARDED = 'x-sluice-forwarded'
const utf8: Serde<unknown> = {
  name: 'utf8',
  serialize: (v) => Buffer.from(String(v), 'utf8'),
  deserialize: (b) => b.toString('utf8'),
}

export async function startQueryServer(options: { host?: string; port: number }): Promise<QueryServer> {
  const host = options.host ?? '127.0.0.1'
  let target: { app: QueryableApp; stores: Readonly<Record<string, ServedStore>> } | undefined
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => reply(res, 500, { error_code: 500, message: String(e) }))
  })
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET') return reply(res, 405, { error_code: 405, message: 'only GET is answered' })
    if (req.url === '/metrics' && target?.app.metrics !== undefined) {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' })
      res.end(metricsText(target.app.applicationId ?? '', target.app.metrics()))
      return
    }
    const parts = (req.url ?? '/')
      .split('?')[0]!
      .split('/')
      .filter((p) => p !== '')
      .map(decodeURIComponent)
    if (parts[0] !== 'stores' || parts.length < 3)
      return reply(res, 404, { error_code: 404, message: `no route ${req.url ?? ''}` })
    const [, name, what, rawKey] = parts as [string, string, string, string | undefined]
    const served = target?.stores[name]
    if (target === undefined || served === undefined)
      return reply(res, 404, { error_code: 404, message: `store ${name} is not served here` })
    const { app } = target
    try {
      if (what === 'local' && parts.length === 3) {
        const entries = [...app.store(name).all()].map((kv) => ({ key: kv.key, value: kv.value }))
        return reply(res, 200, { entries })
      }
      if ((what !== 'keys' && what !== 'metadata') || rawKey === undefined || parts.length !== 4)
        return reply(res, 404, { error_code: 404, message: `no route ${req.url ?? ''}` })
      const key = served.parseKey === undefined ? rawKey : served.parseKey(rawKey)
      const meta = app.metadataForKey(name, key, served.keySerde ?? utf8)
      if (what === 'metadata') return reply(res, 200, meta)
      if (meta.local) {
        const value = app.store(name).get(key)
        if (value === undefined)
          return reply(res, 404, { error_code: 404, message: `no value for ${rawKey} in ${name}` })
        return reply(res, 200, { key, value })
      }
      if (meta.endpoint === undefined || req.headers[FORWARDED] !== undefined)
        return reply(res, 503, {
          error_code: 503,
          message: `key ${rawKey} of ${name} is not hosted here and its owner is not known yet (a rebalance); retry`,
        })
      const answer = await fetch(`http://${meta.endpoint}${req.url ?? ''}`, { headers: { [FORWARDED]: '1' } })
      res.writeHead(answer.status, { 'content-type': 'application/json' })
      res.end(await answer.text())
    } catch (e) {
      if (isStreamsError(e, 'QUERY')) return reply(res, 400, { error_code: 400, message: e.message })
      throw e
    }
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, host, () => resolve())
  })
  const port = (server.address() as AddressInfo).port
  return {
    endpoint: `${host}:${port}`,
    serve: (app, o) => {
      target = { app, stores: o.stores }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)))
}
