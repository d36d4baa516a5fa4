import net from 'node:net'
import { describe, expect, it } from 'vitest'
import { freePorts, isPortFree } from './ports.js'

describe('ports', () => {
  it('finds distinct free ports and sees a bound one as taken', async () => {
    const ports = await freePorts(3)
    expect(new Set(ports).size).toBe(3)
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(ports[0], '127.0.0.1', resolve))
    try {
      expect(await isPortFree(ports[0]!)).toBe(false)
      expect(await isPortFree(ports[1]!)).toBe(true)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
