/**
 * The fault suite's own tools, tested without a cluster (no build needed, runs in about a
 * second): the TCP proxy against a real echo server on 127.0.0.1, and the checker against
 * hand-made histories with known losses, duplicates and reorderings, so that a green fault
 * scenario means the cluster was right and not that the checker looked away.
 */
import net from 'node:net'
import { setTimeout as delay } from 'node:timers/promises'
import { waitFor } from '@sluice/testkit'
import { describe, expect, it, onTestFinished } from 'vitest'
import { analyze, formatReport, LoadRecorder, type ReadRecord } from '../src/harness/checker.js'
import { mulberry32, parseSoakArgs } from '../src/harness/random.js'
import { startTcpProxy, type TcpProxy } from '../src/harness/tcp-proxy.js'

interface EchoServer {
  port: number
  received: () => string
  connections: () => number
}

/** Echoes every byte back and remembers what it got (all connections together). */
async function echoServer(): Promise<EchoServer> {
  const chunks: Buffer[] = []
  let connections = 0
  const sockets = new Set<net.Socket>()
  const server = net.createServer((s) => {
    connections++
    sockets.add(s)
    s.on('data', (c: Buffer) => {
      chunks.push(c)
      s.write(c)
    })
    s.on('error', () => {})
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  onTestFinished(async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return {
    port: (server.address() as net.AddressInfo).port,
    received: () => Buffer.concat(chunks).toString('utf8'),
    connections: () => connections,
  }
}

interface TestClient {
  socket: net.Socket
  echoed: () => string
  closed: Promise<string>
}

function connectClient(port: number): TestClient {
  const socket = net.connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  socket.on('data', (c: Buffer) => chunks.push(c))
  const closed = new Promise<string>((resolve) => {
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message))
    socket.on('close', () => resolve('closed'))
  })
  onTestFinished(() => {
    socket.destroy()
  })
  return { socket, echoed: () => Buffer.concat(chunks).toString('utf8'), closed }
}

async function proxyTo(port: number): Promise<TcpProxy> {
  const proxy = await startTcpProxy({ target: `127.0.0.1:${port}`, name: 'test' })
  onTestFinished(async () => {
    await proxy.close()
  })
  return proxy
}

describe('tcp proxy', () => {
  it('forwards both ways in pass mode', async () => {
    const echo = await echoServer()
    const proxy = await proxyTo(echo.port)
    expect(proxy.endpoint).toBe(`127.0.0.1:${proxy.port}`)
    const c = connectClient(proxy.port)
    c.socket.write('hello ')
    c.socket.write('world')
    await waitFor(() => c.echoed() === 'hello world', { timeoutMs: 5_000, description: 'the echo' })
    expect(echo.received()).toBe('hello world')
    expect(proxy.stats()).toMatchObject({ accepted: 1, open: 1, reset: 0 })
  })

  it('drop resets open connections and new ones until healed', async () => {
    const echo = await echoServer()
    const proxy = await proxyTo(echo.port)
    const before = connectClient(proxy.port)
    before.socket.write('x')
    await waitFor(() => before.echoed() === 'x', { timeoutMs: 5_000, description: 'the first echo' })

    proxy.setMode('drop')
    expect(await before.closed).toMatch(/ECONNRESET|closed/)
    const during = connectClient(proxy.port)
    during.socket.write('lost')
    expect(await during.closed).toMatch(/ECONNRESET|EPIPE|closed/)
    expect(echo.received()).toBe('x')
    expect(proxy.stats().reset).toBeGreaterThanOrEqual(2)

    proxy.heal()
    const after = connectClient(proxy.port)
    after.socket.write('back')
    await waitFor(() => after.echoed() === 'back', { timeoutMs: 5_000, description: 'the echo after heal' })
    expect(echo.received()).toBe('xback')
  })

  it('hold delays bytes of open and new connections without resetting them, and heal delivers them in order', async () => {
    const echo = await echoServer()
    const proxy = await proxyTo(echo.port)
    const open = connectClient(proxy.port)
    open.socket.write('a1')
    await waitFor(() => open.echoed() === 'a1', { timeoutMs: 5_000, description: 'the first echo' })

    proxy.setMode('hold')
    open.socket.write('a2')
    const late = connectClient(proxy.port)
    late.socket.write('b1')
    await waitFor(() => proxy.stats().accepted === 2, {
      timeoutMs: 5_000,
      description: 'the proxy to accept the new connection',
    })
    // Absence can only be observed over a window: nothing may get through during it.
    await delay(300)
    expect(echo.received()).toBe('a1')
    expect(echo.connections()).toBe(1) // the held new connection was not even made upstream
    expect(open.socket.destroyed).toBe(false)
    expect(late.socket.destroyed).toBe(false)

    proxy.heal()
    await waitFor(() => open.echoed() === 'a1a2' && late.echoed() === 'b1', {
      timeoutMs: 5_000,
      description: 'the held bytes',
    })
    expect(echo.connections()).toBe(2)
    expect(proxy.stats().reset).toBe(0)
  })

  it('close resets everything and stops listening', async () => {
    const echo = await echoServer()
    const proxy = await startTcpProxy({ target: `127.0.0.1:${echo.port}` })
    const c = connectClient(proxy.port)
    c.socket.write('x')
    await waitFor(() => c.echoed() === 'x', { timeoutMs: 5_000, description: 'the echo' })
    await proxy.close()
    expect(await c.closed).toMatch(/ECONNRESET|closed/)
    const refused = connectClient(proxy.port)
    expect(await refused.closed).toMatch(/ECONNREFUSED/)
    await proxy.close() // idempotent
  })

  it('asks a function target at each new connection, so a target may move', async () => {
    const first = await echoServer()
    const second = await echoServer()
    let target = `127.0.0.1:${first.port}`
    const proxy = await startTcpProxy({ target: () => target })
    onTestFinished(async () => {
      await proxy.close()
    })
    const a = connectClient(proxy.port)
    a.socket.write('one')
    await waitFor(() => a.echoed() === 'one', { timeoutMs: 5_000, description: 'the first echo' })
    target = `127.0.0.1:${second.port}`
    const b = connectClient(proxy.port)
    b.socket.write('two')
    await waitFor(() => b.echoed() === 'two', { timeoutMs: 5_000, description: 'the second echo' })
    expect([first.received(), second.received()]).toEqual(['one', 'two'])
  })

  it('rejects a malformed target', async () => {
    await expect(startTcpProxy({ target: 'nope' })).rejects.toThrow(/host:port/)
  })
})

const rec = (partition: number, offset: bigint, key: string, seq: number): ReadRecord => ({
  partition,
  offset,
  key,
  value: `${key}:${seq}`,
})

describe('checker', () => {
  it('passes a clean history and counts readable records that were never acknowledged', () => {
    const load = new LoadRecorder()
    load.acked({ partition: 0, offset: 0n, key: 'k1', seq: 0 })
    load.acked({ partition: 0, offset: 1n, key: 'k1', seq: 1 })
    load.acked({ partition: 1, offset: 0n, key: 'k2', seq: 0 })
    load.failed({ key: 'k2', seq: 1 })
    const read = [rec(0, 0n, 'k1', 0), rec(0, 1n, 'k1', 1), rec(1, 0n, 'k2', 0), rec(1, 1n, 'k2', 1)]
    const report = analyze(load, read)
    expect(report).toMatchObject({
      acknowledged: 3,
      failed: 1,
      read: 4,
      acknowledgedMissing: 0,
      offsetMismatch: 0,
      duplicates: 0,
      reordered: 0,
      unacknowledgedReadable: 1,
    })
    expect(report.ok).toBe(true)
    expect(formatReport('clean', report)).toMatch(
      /^CHECK clean: OK acked=3 failed=1 read=4 missing=0 offsetMismatch=0 duplicates=0 reordered=0 unackedReadable=1/,
    )
  })

  it('finds lost, duplicated, reordered and misplaced records', () => {
    const load = new LoadRecorder()
    for (let seq = 0; seq < 4; seq++) load.acked({ partition: 0, offset: BigInt(seq), key: 'k', seq })
    load.acked({ partition: 1, offset: 0n, key: 'j', seq: 0 })
    load.acked({ partition: 1, offset: 1n, key: 'j', seq: 1 })
    const read = [
      rec(0, 0n, 'k', 0),
      rec(0, 1n, 'k', 2),
      rec(0, 2n, 'k', 1), // 1 and 2 swapped: reordered, both misplaced
      rec(0, 3n, 'k', 2), // 2 again: a duplicate (counted once, not also as reordered); 3 is lost
      rec(1, 0n, 'j', 0),
      rec(1, 1n, 'j', 1),
    ]
    const report = analyze(load, read)
    expect(report.acknowledgedMissing).toBe(1)
    expect(report.duplicates).toBe(1)
    expect(report.reordered).toBe(1)
    expect(report.offsetMismatch).toBe(2)
    expect(report.ok).toBe(false)
    expect(report.examples.join('\n')).toMatch(/missing k:3 acked at 0@3/)
    expect(formatReport('bad', report)).toMatch(/^CHECK bad: FAILED/)
  })

  it('ignores records of other writers (keys it did not produce) but counts them', () => {
    const load = new LoadRecorder()
    load.acked({ partition: 0, offset: 0n, key: 'k', seq: 0 })
    const report = analyze(load, [rec(0, 0n, 'k', 0), { partition: 0, offset: 1n, key: null, value: 'noise' }])
    expect(report.foreign).toBe(1)
    expect(report.ok).toBe(true)
  })

  it('flags a readable record that was never sent', () => {
    const report = analyze(new LoadRecorder(), [rec(2, 5n, 'k', 9)])
    expect(report.phantom).toBe(1)
    expect(report.ok).toBe(false)
    expect(report.examples).toEqual(['phantom k:9 at 2@5 was never sent'])
  })
})

describe('seeded randomness and soak arguments', () => {
  it('repeats a sequence for a seed', () => {
    const a = mulberry32(42)
    const b = mulberry32(42)
    const xs = Array.from({ length: 5 }, () => a())
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs)
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true)
    expect(mulberry32(43)()).not.toBe(xs[0])
  })

  it('parses --seed and --minutes, and rejects junk', () => {
    expect(parseSoakArgs(['--seed', '7', '--minutes', '2.5'])).toEqual({ seed: 7, minutes: 2.5 })
    expect(parseSoakArgs([]).minutes).toBe(5)
    expect(() => parseSoakArgs(['--minutes', '-1'])).toThrow(/--minutes/)
    expect(() => parseSoakArgs(['--bogus'])).toThrow(/--bogus/)
  })
})
