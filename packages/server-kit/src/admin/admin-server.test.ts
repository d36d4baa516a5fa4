import { afterEach, describe, expect, it } from 'vitest'
import { Counter, Registry } from 'prom-client'
import { SluiceError } from '@sluice/protocol'
import { startAdminServer, type AdminServer, type Readiness } from './admin-server.js'
import { createMetricsRegistry } from './registry.js'
import { RpcMetrics } from './rpc-metrics.js'

const servers: AdminServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map(async (s) => await s.close()))
})

async function start(readiness: () => Readiness, registry: Registry = new Registry()): Promise<string> {
  const s = await startAdminServer({ host: '127.0.0.1', port: 0, metrics: registry, readiness })
  servers.push(s)
  expect(s.port).toBeGreaterThan(0)
  return `http://127.0.0.1:${s.port}`
}

describe('admin server', () => {
  it('answers /healthz with 200 and unknown paths with 404', async () => {
    const base = await start(() => ({ ready: true }))
    const health = await fetch(`${base}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.text()).toBe('ok\n')
    expect((await fetch(`${base}/nope`)).status).toBe(404)
    expect((await fetch(`${base}/`)).status).toBe(404)
    expect((await fetch(`${base}/healthz/extra`)).status).toBe(404)
    const post = await fetch(`${base}/healthz`, { method: 'POST' })
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD')
    const head = await fetch(`${base}/readyz`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })

  it('flips /readyz between 200 and 503 with the reason as JSON', async () => {
    let state: Readiness = { ready: false, reason: 'not registered with the metadata service' }
    const base = await start(() => state)
    const notReady = await fetch(`${base}/readyz`)
    expect(notReady.status).toBe(503)
    expect(notReady.headers.get('content-type')).toMatch(/^application\/json/)
    expect(await notReady.json()).toEqual({ ready: false, reason: 'not registered with the metadata service' })
    state = { ready: true }
    const ready = await fetch(`${base}/readyz?verbose=1`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ ready: true })
    state = { ready: false }
    expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ ready: false, reason: 'not ready' })
  })

  it('answers 503 when the readiness check throws', async () => {
    const base = await start(() => {
      throw new Error('boom')
    })
    const res = await fetch(`${base}/readyz`)
    expect(res.status).toBe(503)
    expect(await res.json()).toEqual({ ready: false, reason: 'readiness check failed: boom' })
  })

  it('serves the registry in Prometheus text format, default metrics included', async () => {
    const registry = createMetricsRegistry()
    const c = new Counter({ name: 'sluice_test_things_total', help: 'things', registers: [registry] })
    c.inc(3)
    const rpc = new RpcMetrics(registry).probe('sluice.v1.Test', 'Do')
    rpc.done(performance.now())
    await expect(
      rpc.wrap(async () => {
        throw new SluiceError('NOT_CONTROLLER', 'no')
      })(),
    ).rejects.toThrow('no')
    await expect(
      rpc.wrap(async () => {
        throw new Error('bug')
      })(),
    ).rejects.toThrow('bug')
    const base = await start(() => ({ ready: true }), registry)
    const res = await fetch(`${base}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
    const text = await res.text()
    expect(text).toMatch(/^sluice_test_things_total 3$/m)
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m)
    expect(text).toMatch(/^sluice_rpc_requests_total\{service="sluice.v1.Test",method="Do",code="OK"\} 1$/m)
    expect(text).toMatch(/^sluice_rpc_requests_total\{service="sluice.v1.Test",method="Do",code="NOT_CONTROLLER"\} 1$/m)
    expect(text).toMatch(
      /^sluice_rpc_requests_total\{service="sluice.v1.Test",method="Do",code="UNKNOWN_SERVER_ERROR"\} 1$/m,
    )
    expect(text).toMatch(
      /^sluice_rpc_request_duration_seconds_count\{service="sluice.v1.Test",method="Do",code="OK"\} 1$/m,
    )
  })

  it('answers 500 when collecting fails, and fails to start on a taken port', async () => {
    const errors: unknown[] = []
    const s = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      readiness: () => ({ ready: true }),
      onError: (e) => errors.push(e),
      metrics: {
        contentType: 'text/plain',
        metrics: async () => {
          throw new Error('collector broke')
        },
      },
    })
    servers.push(s)
    const res = await fetch(`http://127.0.0.1:${s.port}/metrics`)
    expect(res.status).toBe(500)
    expect(await res.text()).toContain('collector broke')
    expect(errors).toHaveLength(1)
    await expect(
      startAdminServer({
        host: '127.0.0.1',
        port: s.port,
        readiness: () => ({ ready: true }),
        metrics: new Registry(),
      }),
    ).rejects.toThrow(/EADDRINUSE/)
  })

  it('closes while a client holds a keep-alive connection', async () => {
    const s = await startAdminServer({
      host: '127.0.0.1',
      port: 0,
      readiness: () => ({ ready: true }),
      metrics: new Registry(),
    })
    const res = await fetch(`http://127.0.0.1:${s.port}/healthz`, { keepalive: true })
    expect(res.status).toBe(200)
    await res.text()
    await s.close()
    await expect(fetch(`http://127.0.0.1:${s.port}/healthz`)).rejects.toThrow()
  })
})
