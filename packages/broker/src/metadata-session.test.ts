import * as grpc from '@grpc/grpc-js'
import { pino } from 'pino'
import { describe, expect, it, onTestFinished } from 'vitest'
import { ManualClock, loadSluiceProto, type wire } from '@sluice/protocol'
import { MetadataSession } from './metadata-session.js'

type SessionCall = grpc.ServerDuplexStream<wire.BrokerSessionRequest__Output, wire.BrokerSessionResponse>

/**
 * An in-process stand-in for the metadata service's BrokerSession: registers the broker, sends
 * an (empty) full snapshot, and acknowledges heartbeats while `acking` is set.
 */
async function fakeMetadataService(): Promise<{ endpoint: string; control: { acking: boolean; acks: number } }> {
  const control = { acking: true, acks: 0 }
  const server = new grpc.Server()
  server.addService(loadSluiceProto().sluice.v1.Metadata.service, {
    BrokerSession: (call: SessionCall) => {
      call.on('data', (msg: wire.BrokerSessionRequest__Output) => {
        if (msg.register != null) {
          call.write({ registered: { broker_epoch: '5', cluster_id: 'c' } })
          call.write({ update: { full: true } })
        } else if (msg.heartbeat != null && control.acking) {
          call.write({ heartbeat_ack: { broker_epoch: '5' } })
          control.acks++
        }
      })
      call.on('end', () => call.end())
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
  return { endpoint: `127.0.0.1:${port}`, control }
}

/** Waits for a condition that depends on real I/O (the clock under test stands still meanwhile). */
async function eventually(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5000
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

describe('MetadataSession lease (on a ManualClock)', () => {
  it('ends sessionTimeoutMs after the send time of the last acknowledged heartbeat, not one ms before', async () => {
    const { endpoint, control } = await fakeMetadataService()
    const clock = new ManualClock(1_000_000)
    const session = new MetadataSession({
      brokerId: 1,
      advertisedHost: '127.0.0.1',
      port: 9092,
      rack: '',
      sessionTimeoutMs: 3000,
      heartbeatIntervalMs: 1000,
      endpoints: () => [endpoint],
      onUpdate: async () => {},
      logger: pino({ level: 'silent' }),
      clock,
    })
    onTestFinished(() => session.stop())
    session.start()
    await session.ready
    expect(session.hasLease()).toBe(true)
    clock.advance(1000) // the first heartbeat goes out at 1_001_000 and is acknowledged
    await eventually(() => session.hasLease(1_003_500), 'the heartbeat ack to extend the lease')
    control.acking = false
    clock.advance(2999) // two more heartbeats go out, unacknowledged
    expect(session.hasLease()).toBe(true)
    clock.advance(1)
    expect(session.hasLease()).toBe(false)
    expect(control.acks).toBe(1)
  })
})
