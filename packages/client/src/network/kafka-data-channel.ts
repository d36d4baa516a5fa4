/**
 * A DataChannel (data-channel.ts) over Kafka's own protocol: one plain TCP connection to a
 * broker's Kafka listener (KafkaClientConnection in @sluice/protocol), requests mapped from the
 * gRPC wire shapes to a Kafka API version and the answers mapped back (kafka-produce-mapping.ts,
 * kafka-fetch-mapping.ts). The broker serves both listeners through the same operations, so the
 * mapping is all there is to it.
 *
 * Like RequestStream: at most `maxInFlight` requests outstanding (callers wait for a slot); the
 * connection opens on the first request and again on the first request after it broke. Kafka
 * answers a connection's requests in order, and KafkaClientConnection matches them by correlation
 * id. Failure model:
 * - the connection cannot be opened, breaks or is closed by the broker: every request on it fails
 *   with NETWORK_EXCEPTION (retriable);
 * - a request is not answered within its timeout: it fails with REQUEST_TIMED_OUT, and the
 *   connection is closed (a late answer would be out of step), failing the others with
 *   NETWORK_EXCEPTION;
 * - an answer that does not decode puts the stream out of step: it is a broken connection, so
 *   NETWORK_EXCEPTION too (the cause says what did not decode);
 * - after close(), CLIENT_CLOSED (requests in flight: close()'s reason when it gives one).
 * Requests the broker never answers (acks=0 produce) cannot be carried: Kafka sends nothing back,
 * so only gRPC can tell that one was written; the channel refuses them (the sender uses gRPC).
 */
import { SluiceError, kafka } from '@sluice/protocol'
import type { DataChannel } from './data-channel.js'
import { InFlightSlots } from './in-flight-slots.js'
import type { RequestOptions } from './request-stream.js'

/** How one request kind travels as a Kafka API: the codec, the version and both conversions. */
export interface KafkaMapping<Req, Res, KReq, KRes, KReqIn, KResIn> {
  readonly codec: kafka.KafkaApiCodec<KReq, KRes, KReqIn, KResIn>
  readonly version: number
  toKafka(req: Req): KReqIn
  fromKafka(res: KRes): Res
}

export interface KafkaDataChannelOptions {
  readonly host: string
  readonly port: number
  /** The client id of every request header. */
  readonly clientId: string
  readonly maxInFlight: number
  /** For errors and logs: 'produce to broker 2'. */
  readonly name: string
  /** How long opening the connection may take. */
  readonly connectTimeoutMs: number
}

export class KafkaDataChannel<Req, Res, KReq, KRes, KReqIn, KResIn> implements DataChannel<Req, Res> {
  private connection: Promise<kafka.KafkaClientConnection> | undefined
  private closed = false

  private readonly slots: InFlightSlots

  constructor(
    private readonly mapping: KafkaMapping<Req, Res, KReq, KRes, KReqIn, KResIn>,
    private readonly options: KafkaDataChannelOptions,
  ) {
    this.slots = new InFlightSlots(options.maxInFlight)
  }

  get inFlight(): number {
    return this.slots.inUse
  }
  get hasFreeSlot(): boolean {
    return this.slots.hasFree
  }

  async request(req: Req, options: RequestOptions): Promise<Res | undefined> {
    if (options.expectResponse === false) {
      throw new SluiceError(
        'INVALID_ARGUMENT',
        `${this.options.name}: a Kafka connection cannot carry a request the broker never answers`,
      )
    }
    await this.slots.acquire()
    try {
      if (this.closed) throw new SluiceError('CLIENT_CLOSED', `${this.options.name} connection is closed`)
      const body = this.mapping.toKafka(req)
      const connection = await this.connectionFor()
      const answer = await connection.request(this.mapping.codec, this.mapping.version, body, {
        timeoutMs: options.timeoutMs,
      })
      return this.mapping.fromKafka(answer)
    } catch (err) {
      throw this.typed(err)
    } finally {
      this.slots.release()
    }
  }

  close(reason?: SluiceError): void {
    if (this.closed) return
    this.closed = true
    const connection = this.connection
    this.connection = undefined
    connection?.then(
      (c) => {
        c.close(reason ?? new SluiceError('CLIENT_CLOSED', `${this.options.name} connection closed`))
      },
      () => {},
    )
    this.slots.close()
  }

  /** The open connection, opening a new one when there is none or the last one broke. */
  private async connectionFor(): Promise<kafka.KafkaClientConnection> {
    const current = this.connection
    if (current !== undefined) {
      const c = await current.catch(() => undefined)
      if (c !== undefined && !c.isClosed) return c
      if (this.connection === current) this.connection = undefined
      if (this.connection !== undefined) return await this.connectionFor()
    }
    const opening = kafka.KafkaClientConnection.connect({
      host: this.options.host,
      port: this.options.port,
      clientId: this.options.clientId,
      connectTimeoutMs: this.options.connectTimeoutMs,
    })
    this.connection = opening
    const c = await opening
    // close() may have run while the connection was opening: it must not outlive the channel.
    if (this.closed) {
      c.close(new SluiceError('CLIENT_CLOSED', `${this.options.name} connection closed`))
      throw new SluiceError('CLIENT_CLOSED', `${this.options.name} connection is closed`)
    }
    return c
  }

  /** What the caller sees: retriable transport errors stay as they are, the rest is a broken connection. */
  private typed(err: unknown): SluiceError {
    if (err instanceof SluiceError && (err.retriable || err.code === 'CLIENT_CLOSED')) return err
    if (this.closed) return new SluiceError('CLIENT_CLOSED', `${this.options.name} connection is closed`)
    const message = err instanceof Error ? err.message : String(err)
    return new SluiceError('NETWORK_EXCEPTION', `${this.options.name}: ${message}`, {}, { cause: err })
  }
}
