/**
 * Calls the broker's Kafka API handlers in process, the way the Kafka listener does, against a
 * real broker: each request is encoded with the API's codec at the version asked for and decoded
 * again (so the handler sees exactly what a client of that version can send, defaults included),
 * and each answer is encoded at that version and decoded again (so every answer is checked to
 * encode, and the test reads what a client of that version would read).
 */
import {
  brokerInternals,
  type BrokerHandle,
  type KafkaApiHandler,
  type KafkaRequestContext,
} from '@sluice/broker/internal'
import { kafka } from '@sluice/protocol'
import { expect } from 'vitest'

/** The advertised Kafka endpoint the tests give a broker (no socket listens there). */
export function advertisedKafkaPort(brokerId: number): number {
  return 19_090 + brokerId
}

export class KafkaHandlerClient {
  private nextCorrelationId = 1
  private readonly connection = new AbortController()

  constructor(private readonly broker: BrokerHandle) {}

  /** Closes the simulated connection: handlers waiting on it (a parked fetch) give up. */
  close(): void {
    this.connection.abort()
  }

  async call<Req, Res, ReqIn, ResIn>(
    handler: KafkaApiHandler<Req, ResIn>,
    codec: kafka.KafkaApiCodec<Req, Res, ReqIn, ResIn>,
    version: number,
    request: ReqIn,
  ): Promise<Res | undefined> {
    expect(handler.codec.apiKey).toBe(codec.apiKey)
    expect(version).toBeGreaterThanOrEqual(handler.minVersion)
    expect(version).toBeLessThanOrEqual(handler.maxVersion)
    const w = new kafka.KafkaWriter()
    codec.writeRequest(w, version, request)
    const req = codec.readRequest(new kafka.KafkaReader(w.toBuffer()), version)
    const res = await handler.handle(req, version, this.context(codec.apiKey, version))
    if (res === undefined) return undefined
    const out = new kafka.KafkaWriter()
    codec.writeResponse(out, version, res)
    const r = new kafka.KafkaReader(out.toBuffer())
    const decoded = codec.readResponse(r, version)
    expect(r.remaining).toBe(0)
    return decoded
  }

  private context(apiKey: number, version: number): KafkaRequestContext {
    const internals = brokerInternals(this.broker)
    if (internals === undefined) throw new Error(`broker ${this.broker.brokerId} exposes no internals`)
    const broker = internals.context
    return {
      broker,
      listener: {
        brokerId: this.broker.brokerId,
        host: '127.0.0.1',
        port: advertisedKafkaPort(this.broker.brokerId),
        apis: [],
      },
      header: {
        apiKey,
        apiVersion: version,
        correlationId: this.nextCorrelationId++,
        clientId: 'kafka-handler-test',
        taggedFields: new Map(),
      },
      connectionId: `test-${this.broker.brokerId}`,
      clientId: 'kafka-handler-test',
      signal: this.connection.signal,
      metadataEndpoints: () => broker.cache.metadataEndpoints,
    }
  }
}
