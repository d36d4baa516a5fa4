import * as grpc from '@grpc/grpc-js'
import { pino } from 'pino'
import { describe, expect, it, onTestFinished } from 'vitest'
import { SluiceError, loadSluiceProto, toGrpcError, type wire } from '@sluice/protocol'
import { MetadataForwarder } from './metadata-forwarder.js'

type HeartbeatCall = grpc.ServerUnaryCall<wire.HeartbeatRequest__Output, wire.HeartbeatResponse>

/**
 * A GroupCoordinator stand-in whose Heartbeat answers as `mode` says: like the active
 * controller, like a standby (NOT_COORDINATOR), or never (a stuck instance).
 */
async function coordinator(mode: 'active' | 'standby' | 'silent'): Promise<{ endpoint: string; calls: () => number }> {
  let calls = 0
  const server = new grpc.Server()
  server.addService(loadSluiceProto().sluice.v1.GroupCoordinator.service, {
    Heartbeat: (_call: HeartbeatCall, cb: grpc.sendUnaryData<wire.HeartbeatResponse>) => {
      calls++
      if (mode === 'active') cb(null, { error_code: 0, error_message: '' })
      else if (mode === 'standby') cb(toGrpcError(new SluiceError('NOT_COORDINATOR', 'a standby')) as grpc.ServiceError)
    },
  })
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err !== null ? reject(err) : resolve(p),
    )
  })
  onTestFinished(() => {
    server.forceShutdown()
  })
  return { endpoint: `127.0.0.1:${port}`, calls: () => calls }
}

function forwarder(endpoints: string[]): MetadataForwarder {
  const f = new MetadataForwarder({ endpoints: () => endpoints, logger: pino({ level: 'silent' }) })
  onTestFinished(() => f.close())
  return f
}

const heartbeat = (f: MetadataForwarder, options: { timeoutMs?: number; signal?: AbortSignal } = {}) =>
  f.group<wire.HeartbeatResponse__Output>(
    (c, o, cb) => c.Heartbeat({ group_id: 'g', generation_id: 1, member_id: 'm' }, o, cb),
    options,
  )

describe('MetadataForwarder', () => {
  it('moves past a standby to the active instance, and goes there first afterwards', async () => {
    const standby = await coordinator('standby')
    const active = await coordinator('active')
    const f = forwarder([standby.endpoint, active.endpoint])
    expect((await heartbeat(f)).error_code).toBe(0)
    expect([standby.calls(), active.calls()]).toEqual([1, 1])
    await heartbeat(f)
    expect([standby.calls(), active.calls()]).toEqual([1, 2])
  })

  it('fails with the last error when no instance is active', async () => {
    const standby = await coordinator('standby')
    const f = forwarder([standby.endpoint, '127.0.0.1:1'])
    const err = await heartbeat(f).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SluiceError)
    expect(['NOT_COORDINATOR', 'NETWORK_EXCEPTION']).toContain((err as SluiceError).code)
  })

  it('gives up at the deadline without trying another instance', async () => {
    const silent = await coordinator('silent')
    const active = await coordinator('active')
    const f = forwarder([silent.endpoint, active.endpoint])
    const started = Date.now()
    const err = await heartbeat(f, { timeoutMs: 300 }).catch((e: unknown) => e)
    expect((err as SluiceError).code).toBe('REQUEST_TIMED_OUT')
    expect(Date.now() - started).toBeLessThan(5000)
    expect(active.calls()).toBe(0)
  })

  it('cancels the call when the Kafka connection goes', async () => {
    const silent = await coordinator('silent')
    const f = forwarder([silent.endpoint])
    const aborts = new AbortController()
    const pending = heartbeat(f, { signal: aborts.signal }).catch((e: unknown) => e)
    const deadline = Date.now() + 5000
    while (silent.calls() === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    aborts.abort()
    expect(((await pending) as SluiceError).code).toBe('NETWORK_EXCEPTION')
  })

  it('refuses at once when no endpoint is known', async () => {
    await expect(heartbeat(forwarder([]))).rejects.toMatchObject({ code: 'METADATA_UNAVAILABLE' })
  })
})
