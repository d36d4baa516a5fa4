/**
 * Counts and times every unary method of a grpc-js service implementation (sluice_rpc_*,
 * rpc-metrics.ts) by wrapping its callback; the result code is OK or the Sluice error name the
 * handler answered with. Streaming methods (BrokerSession) pass through unchanged: a session
 * stream lives as long as the broker, so a per-call latency would say nothing.
 */
import type * as grpc from '@grpc/grpc-js'
import { fromGrpcError } from '@sluice/protocol'
import type { RpcMetrics } from './rpc-metrics.js'

export function instrumentService(
  rpc: RpcMetrics | undefined,
  serviceName: string,
  service: grpc.ServiceDefinition,
  impl: grpc.UntypedServiceImplementation,
): grpc.UntypedServiceImplementation {
  if (rpc === undefined) return impl
  const out: grpc.UntypedServiceImplementation = { ...impl }
  for (const [name, def] of Object.entries(service)) {
    const fn = impl[name]
    if (fn === undefined || def.requestStream || def.responseStream) continue
    const probe = rpc.probe(serviceName, name)
    out[name] = ((call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      const start = performance.now()
      const counted: grpc.sendUnaryData<unknown> = (err, ...rest) => {
        probe.done(start, err === null || err === undefined ? undefined : fromGrpcError(err))
        callback(err, ...rest)
      }
      ;(fn as grpc.handleUnaryCall<unknown, unknown>)(call, counted)
    }) as grpc.UntypedHandleCall
  }
  return out
}
