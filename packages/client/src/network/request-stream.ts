/**
 * A long-lived bidirectional stream carrying correlated requests (Produce and Fetch in
 * broker.proto): requests are tagged with a fresh correlation_id, at most `maxInFlight` are
 * outstanding (callers wait for a slot: that is the backpressure), and responses, which may come
 * in any order, are matched back by id.
 *
 * Failure model: when the stream breaks (error status, server end, or a request timing out, after
 * which the stream is reset because its state is unknown) every request outstanding on it is
 * rejected with a typed, retriable error (NETWORK_EXCEPTION / REQUEST_TIMED_OUT) and the next
 * request opens a new stream. Callers decide whether to resend.
 */
import type * as grpc from '@grpc/grpc-js'
import { SluiceError, fromGrpcError } from '@sluice/protocol'
import { InFlightSlots } from './in-flight-slots.js'

interface Pending<Res> {
  call: grpc.ClientDuplexStream<unknown, Res>
  resolve: (res: Res | undefined) => void
  reject: (err: unknown) => void
  timer: NodeJS.Timeout
}

export interface RequestOptions {
  timeoutMs: number
  /** false for requests the server never answers (acks=0 produce): resolves once written. */
  expectResponse?: boolean
}

export class RequestStream<Req extends { correlation_id?: unknown }, Res extends { correlation_id: string }> {
  private call: grpc.ClientDuplexStream<Req, Res> | undefined
  private readonly pending = new Map<string, Pending<Res>>()
  private nextId = 1
  private closed = false

  private readonly slots: InFlightSlots

  constructor(
    private readonly open: () => grpc.ClientDuplexStream<Req, Res>,
    maxInFlight: number,
    private readonly name: string,
  ) {
    this.slots = new InFlightSlots(maxInFlight)
  }

  get inFlight(): number {
    return this.slots.inUse
  }
  get hasFreeSlot(): boolean {
    return this.slots.hasFree
  }

  /** Sends one request (its correlation_id is assigned here) and resolves with its response. */
  async request(req: Req, options: RequestOptions): Promise<Res | undefined> {
    await this.slots.acquire()
    if (this.closed) {
      this.slots.release()
      throw new SluiceError('CLIENT_CLOSED', `${this.name} stream is closed`)
    }
    let call: grpc.ClientDuplexStream<Req, Res>
    try {
      call = this.ensureCall()
    } catch (err) {
      this.slots.release()
      throw err
    }
    const id = String(this.nextId++)
    const expectResponse = options.expectResponse ?? true
    return await new Promise<Res | undefined>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.onTimeout(id, options.timeoutMs)
      }, options.timeoutMs)
      const settle = (fn: () => void): void => {
        clearTimeout(timer)
        this.pending.delete(id)
        this.slots.release()
        fn()
      }
      this.pending.set(id, {
        call: call as grpc.ClientDuplexStream<unknown, Res>,
        resolve: (res) => {
          settle(() => {
            resolve(res)
          })
        },
        reject: (err) => {
          settle(() => {
            reject(err)
          })
        },
        timer,
      })
      call.write({ ...req, correlation_id: id }, (err: Error | null | undefined) => {
        if (err !== null && err !== undefined) this.pending.get(id)?.reject(fromGrpcError(err))
        else if (!expectResponse) this.pending.get(id)?.resolve(undefined)
      })
    })
  }

  /** Rejects everything outstanding and cancels the stream; later requests fail with CLIENT_CLOSED. */
  close(): void {
    if (this.closed) return
    this.closed = true
    const call = this.call
    this.call = undefined
    if (call !== undefined) this.failCall(call, new SluiceError('CLIENT_CLOSED', `${this.name} stream closed`))
    call?.cancel()
    this.slots.close()
  }

  private ensureCall(): grpc.ClientDuplexStream<Req, Res> {
    if (this.call !== undefined) return this.call
    const call = this.open()
    this.call = call
    call.on('data', (res: Res) => {
      this.pending.get(String(res.correlation_id))?.resolve(res)
    })
    call.on('error', (err: Error) => {
      this.broken(call, fromGrpcError(err))
    })
    call.on('end', () => {
      this.broken(call, new SluiceError('NETWORK_EXCEPTION', `${this.name} stream ended by the server`))
    })
    return call
  }

  private broken(call: grpc.ClientDuplexStream<Req, Res>, err: SluiceError): void {
    if (this.call === call) this.call = undefined
    this.failCall(call, err.retriable ? err : new SluiceError('NETWORK_EXCEPTION', err.message, {}, { cause: err }))
  }

  private failCall(call: grpc.ClientDuplexStream<Req, Res>, err: SluiceError): void {
    for (const p of [...this.pending.values()]) {
      if (p.call === (call as grpc.ClientDuplexStream<unknown, Res>)) p.reject(err)
    }
  }

  private onTimeout(id: string, timeoutMs: number): void {
    const p = this.pending.get(id)
    if (p === undefined) return
    p.reject(new SluiceError('REQUEST_TIMED_OUT', `${this.name} request got no response within ${timeoutMs} ms`))
    // The stream's state is unknown now (a late answer could still come): start a fresh one.
    const call = p.call as unknown as grpc.ClientDuplexStream<Req, Res>
    if (this.call === call) this.call = undefined
    this.failCall(call, new SluiceError('NETWORK_EXCEPTION', `${this.name} stream reset after a request timeout`))
    call.cancel()
  }
}
