/**
 * The listener's table of APIs: each registered handler by api key, with the versions it is
 * answered at (the handler's range intersected with its codec's), and the decoding of one
 * request frame into a header, a handler and a body. Decoding never throws: every malformed or
 * unsupported frame becomes a `refused` result saying why, which the connection logs before it
 * closes (what Kafka does with a request it cannot parse).
 */
import { readInt16BE, readInt32BE, kafka } from '@sluice/protocol'
import type { RpcProbe } from '@sluice/server-kit'
import type { KafkaApiHandler, KafkaApiVersionRange } from './kafka-api-handler.js'

/** ApiVersions: the one API whose unsupported versions are answered instead of refused. */
export const API_VERSIONS_KEY = 18

export interface KafkaApiEntry {
  readonly handler: KafkaApiHandler<unknown, unknown>
  readonly minVersion: number
  readonly maxVersion: number
  /** Counts and times each request in sluice_rpc_* (absent when the broker has no metrics). */
  readonly probe: RpcProbe | undefined
}

export type DecodedKafkaRequest =
  | {
      readonly kind: 'request'
      readonly header: kafka.KafkaRequestHeader
      readonly entry: KafkaApiEntry
      readonly body: unknown
    }
  /** ApiVersions at a version this broker does not know: answered in v0 with UNSUPPORTED_VERSION (KIP-511). */
  | { readonly kind: 'unsupported-api-versions'; readonly correlationId: number; readonly apiVersion: number }
  | {
      readonly kind: 'refused'
      readonly reason: string
      readonly apiKey?: number
      readonly apiVersion?: number
      readonly correlationId?: number
    }

/** api key (int16), api version (int16), correlation id (int32): the part every header version shares. */
const FIXED_HEADER_BYTES = 8

export class KafkaApiTable {
  private readonly entries = new Map<number, KafkaApiEntry>()
  /** Every API answered, by api key ascending: the ApiVersions list. */
  readonly apis: readonly KafkaApiVersionRange[]

  /**
   * Throws on a table that cannot be served (two handlers for one key, an empty range): a
   * programming error. `probeFor` gives each API's metrics probe by name, when there are metrics.
   */
  constructor(handlers: readonly KafkaApiHandler<unknown, unknown>[], probeFor?: (apiName: string) => RpcProbe) {
    for (const handler of handlers) {
      const { codec } = handler
      if (this.entries.has(codec.apiKey)) {
        throw new Error(`two Kafka handlers for api key ${codec.apiKey} (${codec.name})`)
      }
      const minVersion = Math.max(handler.minVersion, codec.minVersion)
      const maxVersion = Math.min(handler.maxVersion, codec.maxVersion)
      if (minVersion > maxVersion) {
        throw new Error(
          `Kafka handler ${codec.name}: versions ${handler.minVersion}-${handler.maxVersion} are outside the schema's ${codec.minVersion}-${codec.maxVersion}`,
        )
      }
      this.entries.set(codec.apiKey, { handler, minVersion, maxVersion, probe: probeFor?.(codec.name) })
    }
    this.apis = [...this.entries.entries()]
      .sort(([a], [b]) => a - b)
      .map(([apiKey, e]) => ({ apiKey, minVersion: e.minVersion, maxVersion: e.maxVersion }))
  }

  /** Decodes one frame body (the bytes after the size prefix). */
  decode(frame: Buffer): DecodedKafkaRequest {
    if (frame.length < FIXED_HEADER_BYTES) {
      return { kind: 'refused', reason: `a ${frame.length}-byte frame is shorter than a request header` }
    }
    const apiKey = readInt16BE(frame, 0)
    const apiVersion = readInt16BE(frame, 2)
    const correlationId = readInt32BE(frame, 4)
    const entry = this.entries.get(apiKey)
    if (entry === undefined) {
      return { kind: 'refused', reason: `unknown api key ${apiKey}`, apiKey, apiVersion, correlationId }
    }
    if (apiVersion < entry.minVersion || apiVersion > entry.maxVersion) {
      // The rest of the header is not read: a newer client may use a header this broker does not know.
      if (apiKey === API_VERSIONS_KEY) return { kind: 'unsupported-api-versions', correlationId, apiVersion }
      return {
        kind: 'refused',
        reason: `${entry.handler.codec.name} v${apiVersion} is not supported (${entry.minVersion}-${entry.maxVersion})`,
        apiKey,
        apiVersion,
        correlationId,
      }
    }
    const codec = entry.handler.codec
    try {
      const r = new kafka.KafkaReader(frame)
      const header = kafka.readRequestHeader(r, codec.requestHeaderVersion(apiVersion))
      const body = codec.readRequest(r, apiVersion)
      return { kind: 'request', header, entry, body }
    } catch (err) {
      // Anything a codec throws on hostile bytes (KafkaWireError, or a bug) refuses the request alike.
      const reason = `undecodable ${codec.name} v${apiVersion} request: ${(err as Error)?.message ?? String(err)}`
      return { kind: 'refused', reason, apiKey, apiVersion, correlationId }
    }
  }
}
