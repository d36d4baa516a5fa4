import { afterEach, describe, expect, it } from 'vitest'
import type { AdminServer } from './admin-server.js'
import { startProcessAdmin } from './process-admin.js'

const servers: AdminServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map(async (s) => await s.close()))
})

describe('process admin', () => {
  it('serves the process readiness and logs a failed scrape as a warning', async () => {
    const warnings: Array<{ obj: { err: unknown }; msg: string }> = []
    const logger = {
      warn: (obj: { err: unknown }, msg: string) => {
        warnings.push({ obj, msg })
      },
    }
    const failure = new Error('collector broke')
    const s = await startProcessAdmin(
      { host: '127.0.0.1', port: 0, logger },
      {
        contentType: 'text/plain',
        metrics: async () => {
          throw failure
        },
      },
      () => ({ ready: false, reason: 'starting' }),
    )
    servers.push(s)
    const base = `http://127.0.0.1:${s.port}`
    const ready = await fetch(`${base}/readyz`)
    expect(ready.status).toBe(503)
    expect(await ready.json()).toEqual({ ready: false, reason: 'starting' })
    expect(warnings).toEqual([])
    expect((await fetch(`${base}/metrics`)).status).toBe(500)
    expect(warnings).toEqual([{ obj: { err: failure }, msg: 'collecting metrics failed' }])
  })
})
