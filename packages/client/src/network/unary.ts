/**
 * Promise wrapper for unary gRPC calls: a deadline on every call, cancellation through an
 * AbortSignal, and every failure turned into a SluiceError by fromGrpcError (transport failures
 * become NETWORK_EXCEPTION / REQUEST_TIMED_OUT, which the retry helper may retry).
 */
import type * as grpc from '@grpc/grpc-js'
import { fromGrpcError } from '@sluice/protocol'

export type UnaryInvoker<Res> = (options: grpc.CallOptions, callback: grpc.requestCallback<Res>) => grpc.ClientUnaryCall

export async function callUnary<Res>(invoke: UnaryInvoker<Res>, timeoutMs: number, signal?: AbortSignal): Promise<Res> {
  return await new Promise<Res>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason)
      return
    }
    const onAbort = (): void => {
      call.cancel()
    }
    const call = invoke({ deadline: Date.now() + timeoutMs }, (err, res) => {
      signal?.removeEventListener('abort', onAbort)
      if (signal?.aborted === true) reject(signal.reason)
      else if (err !== null) reject(fromGrpcError(err))
      else if (res === undefined) reject(fromGrpcError(new Error('empty response')))
      else resolve(res)
    })
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
