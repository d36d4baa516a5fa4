/**
 * Calls a broker's Kafka API handlers the way the Kafka listener does, without a socket: the
 * request is encoded with the API's codec at the version asked for and decoded again (so the
 * handler gets exactly what a client of that version can send, defaults included), and the
 * answer is encoded at that version and decoded back (so a field the version cannot carry, or a
 * null where the version forbids one, fails the test here).
 */
import { randomUUID } from 'node:crypto'
import { onTestFinished } from 'vitest'
import { kafka } from '@sluice/protocol'
import {
  brokerInternals,
  closeForwarder,
  type BrokerHandle,
  type KafkaApiHandler,
  type KafkaRequestContext,
} from '@sluice/broker/internal'

/** The advertised Kafka endpoint the tests give the broker (no listener runs: nothing dials it). */
export const KAFKA_HOST = '127.0.0.1'
export const KAFKA_PORT = 19092

let correlation = 0

/** A request context on `broker` as one Kafka connection from 127.0.0.1 would see it. */
export function kafkaContext(broker: BrokerHandle, clientId = 'kafka-test-client'): KafkaRequestContext {
  const internals = brokerInternals(broker)
  if (internals === undefined) throw new Error('not a broker started in this process')
  const aborts = new AbortController()
  onTestFinished(() => {
    aborts.abort()
    closeForwarder(internals.context)
  })
  // The API list is what the listener's own context adds (its ApiVersions answer); none here.
  const listener = { brokerId: broker.brokerId, host: KAFKA_HOST, port: KAFKA_PORT, apis: [] }
  return {
    broker: internals.context,
    listener,
    header: { apiKey: -1, apiVersion: -1, correlationId: 0, clientId, taggedFields: new Map() },
    connectionId: `${KAFKA_HOST}:${KAFKA_PORT}-127.0.0.1:5${Math.floor(Math.random() * 9000 + 1000)}-${randomUUID().slice(0, 4)}`,
    clientId,
    signal: aborts.signal,
    metadataEndpoints: () => internals.context.cache.metadataEndpoints,
  }
}

/** One request through `handler` at `version`, both ways through the codec. */
export async function kafkaCall<Req, ReqIn, Res, ResIn>(
  handler: KafkaApiHandler<Req, ResIn>,
  codec: kafka.KafkaApiCodec<Req, Res, ReqIn, ResIn>,
  version: number,
  request: ReqIn,
  ctx: KafkaRequestContext,
): Promise<Res> {
  const w = new kafka.KafkaWriter()
  codec.writeRequest(w, version, request)
  const body = w.toBuffer()
  const r = new kafka.KafkaReader(body)
  const decoded = codec.readRequest(r, version)
  if (r.remaining !== 0) throw new Error(`${codec.name} v${version}: ${r.remaining} request bytes left over`)
  const header = { ...ctx.header, apiKey: codec.apiKey, apiVersion: version, correlationId: ++correlation }
  const answer = await handler.handle(decoded, version, { ...ctx, header })
  if (answer === undefined) throw new Error(`${codec.name} v${version}: no answer`)
  return encodeAndDecode(codec, version, answer)
}

/** An answer encoded at `version` and read back, as a client of that version reads it. */
export function encodeAndDecode<Req, Res, ReqIn, ResIn>(
  codec: kafka.KafkaApiCodec<Req, Res, ReqIn, ResIn>,
  version: number,
  answer: ResIn,
): Res {
  const out = new kafka.KafkaWriter()
  codec.writeResponse(out, version, answer)
  const reader = new kafka.KafkaReader(out.toBuffer())
  const res = codec.readResponse(reader, version)
  if (reader.remaining !== 0) throw new Error(`${codec.name} v${version}: ${reader.remaining} answer bytes left over`)
  return res
}
