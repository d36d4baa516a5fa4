/**
 * `sluice console` end to end, as a user runs it: a separate process against a spawned cluster
 * (one metadata service, one broker with its admin port), the token from SLUICE_CONSOLE_TOKEN,
 * read-only from the flag. It prints its URL, serves the API behind the token and refuses a
 * change, and Ctrl-C (SIGINT) stops it with exit 0. A port already taken is a clear error.
 */
import { createServer } from 'node:net'
import { spawnCluster, waitFor, type SpawnedCluster } from '@sluice/testkit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, startSluice, type DevProcess } from '../src/sluice-cli.js'

describe('sluice console', () => {
  let cluster: SpawnedCluster
  const started: DevProcess[] = []

  beforeAll(async () => {
    assertBuilt()
    cluster = await spawnCluster({ brokers: 1, adminPorts: true, readyTimeoutMs: 60_000 })
  }, 90_000)

  afterAll(async () => {
    for (const p of started) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL')
    await cluster?.stop()
  })

  const run = (args: string[], env: NodeJS.ProcessEnv = {}): DevProcess => {
    const p = startSluice(['--bootstrap', cluster.bootstrap.join(','), 'console', ...args], env)
    started.push(p)
    return p
  }

  it('prints its URL, guards the API with the token, refuses changes when read-only, and stops on Ctrl-C', async () => {
    const p = run(['--port', '0', '--read-only'], { SLUICE_CONSOLE_TOKEN: 'e2e-token' })
    const url = await waitFor(
      () => {
        if (p.child.exitCode !== null) throw new Error(`sluice console exited early:\n${p.output()}`)
        return /console at (http:\/\/127\.0\.0\.1:\d+)/.exec(p.output())?.[1]
      },
      { timeoutMs: 30_000, description: 'the console URL' },
    )
    expect(p.output()).toContain('(read-only, token required)')
    const auth = { authorization: 'Bearer e2e-token' }
    expect((await fetch(`${url}/api/cluster`)).status).toBe(401)
    const c = await fetch(`${url}/api/cluster`, { headers: auth })
    expect(c.status).toBe(200)
    const body = (await c.json()) as { brokers: Array<{ id: number; health: string; adminPort: number }> }
    expect(body.brokers).toEqual([
      expect.objectContaining({ id: 1, health: 'up', adminPort: cluster.brokers[0]!.adminPort }),
    ])
    const made = await fetch(`${url}/api/topics`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'from-e2e' }),
    })
    expect(made.status).toBe(403)
    expect((await fetch(`${url}/topics/orders`)).status).toBe(200)

    p.child.kill('SIGINT')
    expect(await p.exited).toEqual({ code: 0, signal: null })
    expect(p.output()).toContain('SIGINT: stopping the console')
  })

  it('says so when its port is taken, and exits 1', async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
    try {
      const port = (blocker.address() as { port: number }).port
      const p = run(['--port', String(port)])
      expect((await p.exited).code).toBe(1)
      expect(p.output()).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use`))
    } finally {
      blocker.close()
    }
  })
})
