/**
 * One BrokerSession stream (metadata.proto), server side.
 *
 * Protocol: the first message must be `register`; the controller answers `registered`, then a
 * full `update`, then deltas for as long as the session lives. Each `heartbeat` (carrying the
 * broker epoch) is answered with `heartbeat_ack`. Any protocol violation (a second register, a
 * heartbeat before registering or for another broker, an empty message), a stale epoch, or a
 * rejected registration is answered with one `error` message, after which the server ends the
 * stream. The session ends at once when the stream ends, errors or is cancelled, and when
 * heartbeats stop for the session timeout (the store's session sweep); the broker is then lost.
 *
 * The downstream buffer is bounded: a broker that stops reading for MAX_BUFFERED_BYTES of
 * updates is disconnected rather than allowed to grow this process's memory.
 */
import type * as grpc from '@grpc/grpc-js'
import type { Logger } from 'pino'
import { SluiceError, errorId, toInt64String, type wire } from '@sluice/protocol'
import type { BrokerSink, Controller } from '../controller/controller.js'

const MAX_BUFFERED_BYTES = 64 * 1024 * 1024

type SessionCall = grpc.ServerDuplexStream<wire.BrokerSessionRequest__Output, wire.BrokerSessionResponse>

export function serveBrokerSession(ctl: Controller, call: SessionCall, log: Logger): void {
  let state: 'new' | 'registering' | 'live' | 'closed' = 'new'
  let brokerId = -1
  let brokerEpoch = -1n

  const write = (msg: wire.BrokerSessionResponse): void => {
    try {
      call.write(msg)
    } catch (e) {
      log.debug({ err: e, brokerId }, 'write to a broker session failed')
    }
  }

  const close = (error?: SluiceError): void => {
    if (state === 'closed') return
    const wasLive = state === 'live'
    state = 'closed'
    if (error !== undefined) {
      log.info({ brokerId, code: error.code, reason: error.message }, 'ending broker session with an error')
      write({ error: { error_code: errorId(error.code), error_message: error.message } })
    }
    try {
      call.end()
    } catch {
      /* the transport is already gone */
    }
    if (wasLive) ctl.brokerSessionEnded(brokerId, brokerEpoch, error?.message ?? 'stream ended')
  }

  const sink: BrokerSink = {
    registered(id, epoch) {
      brokerId = id
      brokerEpoch = epoch
      if (state === 'registering') state = 'live'
    },
    send(msg) {
      if (state === 'closed') return
      if (call.writableLength > MAX_BUFFERED_BYTES) {
        close(new SluiceError('REQUEST_TIMED_OUT', `broker ${brokerId} stopped reading its session stream`))
        return
      }
      write(msg)
    },
    close,
  }

  const onMessage = (msg: wire.BrokerSessionRequest__Output): void => {
    if (state === 'closed') return
    if (msg.kind === 'register' && msg.register != null) {
      if (state !== 'new') {
        close(new SluiceError('INVALID_REQUEST', 'register sent twice on one session'))
        return
      }
      state = 'registering'
      const id = msg.register.broker_id
      ctl.registerBroker(msg.register, sink).then(
        (epoch) => {
          // The stream died while the registration was being written: end the session now.
          if (state === 'closed') ctl.brokerSessionEnded(id, epoch, 'stream closed during registration')
        },
        (e: unknown) => {
          close(asSluiceError(e))
        },
      )
      return
    }
    if (msg.kind === 'heartbeat' && msg.heartbeat != null) {
      const hb = msg.heartbeat
      if (state !== 'live') {
        close(new SluiceError('INVALID_REQUEST', 'heartbeat before a successful register'))
        return
      }
      if (hb.broker_id !== brokerId) {
        close(
          new SluiceError(
            'INVALID_REQUEST',
            `heartbeat for broker ${hb.broker_id} on the session of broker ${brokerId}`,
          ),
        )
        return
      }
      if (!/^-?\d+$/.test(hb.broker_epoch)) {
        close(new SluiceError('INVALID_REQUEST', `broker_epoch "${hb.broker_epoch}" is not an integer`))
        return
      }
      const epoch = BigInt(hb.broker_epoch)
      ctl.heartbeat(brokerId, epoch).then(
        () => {
          if (state === 'live') sink.send({ heartbeat_ack: { broker_epoch: toInt64String(epoch) } })
        },
        (e: unknown) => {
          close(asSluiceError(e))
        },
      )
      return
    }
    if (msg.kind === 'controlled_shutdown' && msg.controlled_shutdown != null) {
      const cs = msg.controlled_shutdown
      if (state !== 'live') {
        close(new SluiceError('INVALID_REQUEST', 'controlled shutdown before a successful register'))
        return
      }
      if (cs.broker_id !== brokerId || !/^-?\d+$/.test(cs.broker_epoch)) {
        close(
          new SluiceError(
            'INVALID_REQUEST',
            `controlled shutdown for broker ${cs.broker_id} epoch "${cs.broker_epoch}" on the session of broker ${brokerId}`,
          ),
        )
        return
      }
      ctl.controlledShutdown(brokerId, BigInt(cs.broker_epoch)).then(
        (remaining) => {
          sink.send({ shutdown_ack: { error_code: 0, error_message: '', partitions_remaining: remaining } })
        },
        (e: unknown) => {
          const err = asSluiceError(e)
          sink.send({
            shutdown_ack: { error_code: errorId(err.code), error_message: err.message, partitions_remaining: -1 },
          })
        },
      )
      return
    }
    close(new SluiceError('INVALID_REQUEST', 'a session message must carry register, heartbeat or controlled_shutdown'))
  }

  call.on('data', (msg: wire.BrokerSessionRequest__Output) => {
    try {
      onMessage(msg)
    } catch (e) {
      close(asSluiceError(e))
    }
  })
  call.on('end', () => {
    close()
  })
  call.on('error', (e: unknown) => {
    log.debug({ err: e, brokerId }, 'broker session stream error')
    close()
  })
  call.on('cancelled', () => {
    close()
  })
  call.on('close', () => {
    close()
  })
}

function asSluiceError(e: unknown): SluiceError {
  return e instanceof SluiceError
    ? e
    : new SluiceError('UNKNOWN_SERVER_ERROR', String((e as Error)?.message ?? e), {}, { cause: e })
}
