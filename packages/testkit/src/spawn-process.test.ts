import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { SERVER_NODE_FLAGS } from './paths.js'
import { spawnProcess } from './spawn-process.js'
import { liveResources, stopAll } from './tracker.js'

const FAKE = fileURLToPath(new URL('./__fixtures__/fake-server.mjs', import.meta.url))

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function connects(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

afterEach(async () => {
  await stopAll()
  expect(liveResources()).toEqual([])
})

describe('spawnProcess', () => {
  it('starts node with the given flags before the script (SERVER_NODE_FLAGS for servers)', async () => {
    const p = await spawnProcess({ name: 'fake', script: FAKE, args: ['listen'], nodeFlags: SERVER_NODE_FLAGS })
    const argv = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').split('\0')
    expect(argv.slice(1, 1 + SERVER_NODE_FLAGS.length)).toEqual([...SERVER_NODE_FLAGS])
    expect(argv[1 + SERVER_NODE_FLAGS.length]).toBe(FAKE)
    await p.stop()
  })

  it('waits for LISTENING <port>, reports the endpoint, stops with SIGTERM', async () => {
    const lines: string[] = []
    const p = await spawnProcess({ name: 'fake', script: FAKE, args: ['listen'], onLine: (l) => lines.push(l) })
    expect(p.port).toBeGreaterThan(0)
    expect(p.endpoint).toBe(`127.0.0.1:${p.port}`)
    expect(await connects(p.port)).toBe(true)
    expect(lines[0]).toContain('"msg":"starting"')
    expect(liveResources()).toHaveLength(1)
    expect(await p.stop()).toEqual({ code: 0, signal: null })
    expect(isAlive(p.pid)).toBe(false)
    expect(liveResources()).toEqual([])
  })

  it("reads a broker's KAFKA_LISTENING <port> line, printed before LISTENING", async () => {
    const plain = await spawnProcess({ name: 'plain', script: FAKE, args: ['listen'] })
    expect([plain.kafkaPort, plain.kafkaEndpoint]).toEqual([undefined, undefined])
    const p = await spawnProcess({ name: 'kafka', script: FAKE, args: ['kafka'] })
    expect(p.kafkaPort).toBe(p.port + 1)
    expect(p.kafkaEndpoint).toBe(`127.0.0.1:${p.port + 1}`)
    await Promise.all([plain.stop(), p.stop()])
  })

  it('rejects with the stderr tail when the process exits before listening', async () => {
    await expect(spawnProcess({ name: 'crashy', script: FAKE, args: ['crash'] })).rejects.toThrow(
      /crashy exited \(code 3.*\n.*config problem: dataDir: Required/,
    )
  })

  it('rejects and kills the process when LISTENING does not come before the deadline', async () => {
    await expect(
      spawnProcess({ name: 'mute', script: FAKE, args: ['silent'], listeningTimeoutMs: 500 }),
    ).rejects.toThrow('did not print LISTENING <port> within 500 ms')
    // Only an exited process leaves the tracker.
    expect(liveResources()).toEqual([])
  })

  it('escalates to SIGKILL when SIGTERM is ignored', async () => {
    const p = await spawnProcess({ name: 'stubborn', script: FAKE, args: ['stubborn'] })
    expect(await p.stop({ timeoutMs: 300 })).toEqual({ code: null, signal: 'SIGKILL' })
    expect(isAlive(p.pid)).toBe(false)
  })

  it('stopAll stops whatever a test left running', async () => {
    const a = await spawnProcess({ name: 'a', script: FAKE, args: ['listen'] })
    const b = await spawnProcess({ name: 'b', script: FAKE, args: ['listen'] })
    await stopAll()
    expect(a.exitInfo).toEqual({ code: 0, signal: null })
    expect(b.exitInfo).toEqual({ code: 0, signal: null })
  })

  it('fails clearly when the script is not built', async () => {
    await expect(spawnProcess({ name: 'x', script: '/nonexistent/dist/main.js', args: [] })).rejects.toThrow(
      'build first',
    )
  })
})
