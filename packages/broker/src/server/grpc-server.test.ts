import http2 from 'node:http2'
import { pino } from 'pino'
import { describe, expect, it } from 'vitest'
import { MetadataCache } from '../metadata-cache.js'
import type { ReplicaManager } from '../replica-manager.js'
import { DelayedFetchPurgatory } from './delayed-fetch.js'
import { startGrpcServer } from './grpc-server.js'

describe('startGrpcServer', () => {
  it('raises the HTTP/2 receive windows it advertises to clients', async () => {
    const ctx = {
      brokerId: 1,
      logger: pino({ level: 'silent' }),
      cache: new MetadataCache({ metadataEndpoints: [] }),
      replicas: {} as ReplicaManager,
      purgatory: new DelayedFetchPurgatory(),
    }
    const server = await startGrpcServer(ctx, '127.0.0.1', 0)
    const client = http2.connect(`http://127.0.0.1:${server.port}`)
    try {
      await new Promise<void>((resolve, reject) => {
        client.on('error', reject)
        client.on('remoteSettings', (s) => {
          if (s.initialWindowSize === 8 * 1024 * 1024) resolve()
        })
      })
      // The connection-level window arrives as a WINDOW_UPDATE right after the settings.
      const deadline = Date.now() + 5000
      while (client.state.remoteWindowSize !== 64 * 1024 * 1024 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      expect(client.state.remoteWindowSize).toBe(64 * 1024 * 1024)
    } finally {
      client.close()
      await server.stop()
    }
  })
})
