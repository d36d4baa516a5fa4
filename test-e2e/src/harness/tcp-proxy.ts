/**
 * A TCP proxy that stands between two processes so a test can cut the link between them.
 *
 * Modes (switchable at any time, `heal()` returns to 'pass'):
 * - 'pass': bytes flow both ways through `pipe()` (which carries backpressure and half-close).
 * - 'drop': every open connection is reset (both sides), and each new connection is accepted
 *   and reset at once: the peer sees ECONNRESET, as if the far side had crashed.
 * - 'hold': a partition that does not reset anything. Open connections stop forwarding (reading
 *   is paused, so bytes wait in the kernel buffers and a FIN waits behind them); new connections
 *   are accepted but not connected upstream. On heal, everything held flows on, in order: a
 *   link that comes back rather than a link that was torn down. Peers notice only by their own
 *   timeouts (heartbeats, keepalive, request deadlines).
 *
 * The proxy never changes, drops or reorders bytes of a connection it keeps.
 */
import net from 'node:net'

export type ProxyMode = 'pass' | 'drop' | 'hold'

export interface ProxyStats {
  /** Connections accepted since start. */
  readonly accepted: number
  /** Connections currently open (held ones included). */
  readonly open: number
  /** Connections reset by 'drop'. */
  readonly reset: number
}

export interface TcpProxy {
  readonly name: string
  readonly port: number
  /** 127.0.0.1:<port>, to hand to the process that should go through the proxy. */
  readonly endpoint: string
  readonly mode: ProxyMode
  setMode(mode: ProxyMode): void
  /** Back to 'pass': held connections resume, new ones connect upstream. */
  heal(): void
  stats(): ProxyStats
  /** Resets every connection and stops listening. Idempotent. */
  close(): Promise<void>
}

export interface TcpProxyOptions {
  /** host:port to forward to; a function is asked at each new upstream connection (a target that moves). */
  readonly target: string | (() => string)
  /** For messages and the cluster's summary, e.g. `b1->b2`. */
  readonly name?: string
  readonly mode?: ProxyMode
}

interface Link {
  readonly client: net.Socket
  upstream: net.Socket | undefined
  /** Whether the two sockets are piped to each other right now. */
  flowing: boolean
}

function parseTarget(target: string): { host: string; port: number } {
  const i = target.lastIndexOf(':')
  const port = Number(target.slice(i + 1))
  if (i <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535)
    throw new RangeError(`proxy target must be host:port, got ${target}`)
  return { host: target.slice(0, i), port }
}

export async function startTcpProxy(options: TcpProxyOptions): Promise<TcpProxy> {
  const targetOf = typeof options.target === 'function' ? options.target : () => options.target as string
  if (typeof options.target === 'string') parseTarget(options.target) // a static target is checked up front
  const name = options.name ?? (typeof options.target === 'string' ? `proxy->${options.target}` : 'proxy')
  const links = new Set<Link>()
  let mode: ProxyMode = options.mode ?? 'pass'
  let accepted = 0
  let reset = 0
  let closed = false

  const destroyLink = (link: Link, hard: boolean): void => {
    if (!links.delete(link)) return
    for (const s of [link.client, link.upstream]) {
      if (s === undefined || s.destroyed) continue
      if (hard) s.resetAndDestroy()
      else s.destroy()
    }
  }

  const stopFlow = (link: Link): void => {
    if (!link.flowing) return
    link.flowing = false
    const { client, upstream } = link
    client.unpipe(upstream)
    upstream?.unpipe(client)
    client.pause()
    upstream?.pause()
  }

  const startFlow = (link: Link): void => {
    if (link.flowing || link.upstream === undefined) return
    link.flowing = true
    link.client.pipe(link.upstream)
    link.upstream.pipe(link.client)
  }

  const connectUpstream = (link: Link): void => {
    let target: { host: string; port: number }
    try {
      target = parseTarget(targetOf())
    } catch {
      destroyLink(link, true)
      return
    }
    const upstream = net.connect({ host: target.host, port: target.port })
    link.upstream = upstream
    upstream.setNoDelay(true)
    // A failing target looks to the client like the far side going away.
    upstream.on('error', () => destroyLink(link, true))
    upstream.on('close', () => destroyLink(link, false))
    upstream.once('connect', () => {
      if (!links.has(link)) return
      if (mode === 'pass') startFlow(link)
      else upstream.pause()
    })
  }

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    accepted++
    client.setNoDelay(true)
    if (closed || mode === 'drop') {
      reset++
      client.on('error', () => {})
      client.resetAndDestroy()
      return
    }
    const link: Link = { client, upstream: undefined, flowing: false }
    links.add(link)
    client.on('error', () => destroyLink(link, true))
    client.on('close', () => destroyLink(link, false))
    // In 'hold' the upstream connection is made only on heal: nothing reaches the target.
    if (mode === 'pass') connectUpstream(link)
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as net.AddressInfo).port

  const setMode = (next: ProxyMode): void => {
    if (closed) return
    mode = next
    for (const link of [...links]) {
      if (next === 'drop') {
        reset++
        destroyLink(link, true)
      } else if (next === 'hold') {
        stopFlow(link)
      } else if (link.upstream === undefined) {
        connectUpstream(link)
      } else if (!link.upstream.connecting) {
        startFlow(link)
      }
    }
  }

  return {
    name,
    port,
    endpoint: `127.0.0.1:${port}`,
    get mode() {
      return mode
    },
    setMode,
    heal: () => setMode('pass'),
    stats: () => ({ accepted, open: links.size, reset }),
    close: async () => {
      if (!closed) {
        closed = true
        for (const link of [...links]) destroyLink(link, true)
      }
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
