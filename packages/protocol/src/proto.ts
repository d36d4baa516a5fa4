/**
 * Loads proto/sluice/v1 (the only wire contract) with @grpc/proto-loader. The options here must
 * match the type generator's in scripts/gen-proto-types.mjs: field names as written
 * (snake_case), int64 as decimal strings, defaults filled in, oneofs named.
 */
import { existsSync, readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import type { ProtoGrpcType as BrokerProto } from './generated/broker.js'
import type { ProtoGrpcType as MetadataProto } from './generated/metadata.js'
import type { ProtoGrpcType as GroupProto } from './generated/group.js'

export type SluiceProto = BrokerProto & MetadataProto & GroupProto

/** The loader options shared by every process; see the type generator's flags. */
export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: String,
  enums: String,
  defaults: true,
  oneofs: true,
}

/** Where proto/ is: beside the repository root (src/ and dist/ are both one level down). */
export function protoRoot(): string {
  const candidates = [
    new URL('../proto/', import.meta.url), // packages/protocol/proto when copied for a package
    new URL('../../../proto/', import.meta.url), // the repository checkout
  ]
  for (const c of candidates) {
    const p = fileURLToPath(c)
    if (existsSync(`${p}sluice/v1/broker.proto`)) return p
  }
  throw new Error(`cannot find proto/sluice/v1: looked in ${candidates.map((c) => fileURLToPath(c)).join(', ')}`)
}

let cached: SluiceProto | undefined

export function loadSluiceProto(): SluiceProto {
  if (cached !== undefined) return cached
  const root = protoRoot()
  // Every file of the contract, so a new .proto needs no change here.
  const files = readdirSync(`${root}sluice/v1`)
    .filter((f) => f.endsWith('.proto'))
    .sort()
    .map((f) => `sluice/v1/${f}`)
  const definition = protoLoader.loadSync(files, { ...PROTO_LOADER_OPTIONS, includeDirs: [root] })
  cached = grpc.loadPackageDefinition(definition) as unknown as SluiceProto
  return cached
}

/**
 * Channel and server options every Sluice process uses: messages up to 64 MiB (a fetch response
 * carries many partitions' batches), and keepalives so a dead peer is noticed.
 */
export const GRPC_MAX_MESSAGE_BYTES = 64 * 1024 * 1024

export const GRPC_CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': GRPC_MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': GRPC_MAX_MESSAGE_BYTES,
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 2_000,
  // grpc-js only: raises the client's HTTP/2 receive window so large fetch responses stream fast.
  'grpc-node.flow_control_window': 8 * 1024 * 1024,
}

export const GRPC_SERVER_OPTIONS: grpc.ServerOptions = {
  'grpc.max_receive_message_length': GRPC_MAX_MESSAGE_BYTES,
  'grpc.max_send_message_length': GRPC_MAX_MESSAGE_BYTES,
  'grpc.keepalive_permit_without_calls': 1,
  'grpc.keepalive_time_ms': 10_000,
  'grpc.keepalive_timeout_ms': 5_000,
  'grpc.http2.min_ping_interval_without_data_ms': 5_000,
}
