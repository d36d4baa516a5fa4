/**
 * Port helpers for tests and `sluice dev`. `freePorts` binds port 0 to let the OS pick unused
 * ports, then releases them: a small race remains (someone else may take the port before the
 * child binds it), acceptable for tests that must pass fixed ports to a process under test.
 */
import net from 'node:net'

export async function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return await new Promise((resolve) => {
    const server = net.createServer()
    server.once('error', () => resolve(false))
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)))
  })
}

/** `count` distinct ports that were free a moment ago; all are held until all are chosen. */
export async function freePorts(count: number, host = '127.0.0.1'): Promise<number[]> {
  const servers: net.Server[] = []
  try {
    for (let i = 0; i < count; i++) {
      const server = net.createServer()
      servers.push(server)
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen({ port: 0, host, exclusive: true }, () => resolve())
      })
    }
    return servers.map((s) => (s.address() as net.AddressInfo).port)
  } finally {
    await Promise.all(servers.map(async (s) => await new Promise<void>((resolve) => s.close(() => resolve()))))
  }
}
