/**
 * STAND-IN, to be deleted at merge: the codec interface and the ApiVersions codec that the
 * generated codecs in @sluice/protocol (packages/protocol/src/kafka/messages) provide. The
 * listener and its handlers import them from this one file only, so the merge replaces this file
 * with re-exports of `kafka.KafkaApiCodec`, `kafka.ApiVersionsApi` and its message types (or
 * changes these imports) and nothing else moves. The shape follows the generator's contract:
 * fields camelCased from Kafka's JSON schema, int64 as bigint.
 */
import type { kafka } from '@sluice/protocol'

type KafkaReader = kafka.KafkaReader
type KafkaWriter = kafka.KafkaWriter

export interface KafkaApiCodec<Req, Res> {
  readonly apiKey: number
  readonly name: string
  readonly minVersion: number
  readonly maxVersion: number
  readonly flexibleFrom: number
  readRequest(r: KafkaReader, version: number): Req
  writeRequest(w: KafkaWriter, version: number, m: Req): void
  readResponse(r: KafkaReader, version: number): Res
  writeResponse(w: KafkaWriter, version: number, m: Res): void
  requestHeaderVersion(version: number): 1 | 2
  responseHeaderVersion(version: number): 0 | 1
}

export interface ApiVersionsRequest {
  clientSoftwareName: string
  clientSoftwareVersion: string
}

export interface ApiVersionsResponseApiVersion {
  apiKey: number
  minVersion: number
  maxVersion: number
}

export interface ApiVersionsResponse {
  errorCode: number
  apiKeys: ApiVersionsResponseApiVersion[]
  throttleTimeMs: number
  supportedFeatures: { name: string; minVersion: number; maxVersion: number }[]
  finalizedFeaturesEpoch: bigint
  finalizedFeatures: { name: string; maxVersionLevel: number; minVersionLevel: number }[]
  zkMigrationReady: boolean
}

const FLEXIBLE_FROM = 3

/**
 * ApiVersions (key 18), versions 0-4, flexible from 3. Only what the broker needs: the feature
 * lists are always empty here, so the tagged section is written empty and read past.
 */
export const ApiVersionsApi: KafkaApiCodec<ApiVersionsRequest, ApiVersionsResponse> = {
  apiKey: 18,
  name: 'ApiVersions',
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: FLEXIBLE_FROM,
  readRequest(r, version) {
    if (version < FLEXIBLE_FROM) return { clientSoftwareName: '', clientSoftwareVersion: '' }
    const clientSoftwareName = r.compactString() ?? ''
    const clientSoftwareVersion = r.compactString() ?? ''
    r.taggedFields()
    return { clientSoftwareName, clientSoftwareVersion }
  },
  writeRequest(w, version, m) {
    if (version < FLEXIBLE_FROM) return
    w.compactString(m.clientSoftwareName).compactString(m.clientSoftwareVersion).taggedFields()
  },
  readResponse(r, version) {
    const flexible = version >= FLEXIBLE_FROM
    const errorCode = r.int16()
    const item = (x: KafkaReader): ApiVersionsResponseApiVersion => {
      const v = { apiKey: x.int16(), minVersion: x.int16(), maxVersion: x.int16() }
      if (flexible) x.taggedFields()
      return v
    }
    const apiKeys = (flexible ? r.compactArray(item) : r.array(item)) ?? []
    const throttleTimeMs = version >= 1 ? r.int32() : 0
    if (flexible) r.taggedFields()
    return {
      errorCode,
      apiKeys,
      throttleTimeMs,
      supportedFeatures: [],
      finalizedFeaturesEpoch: -1n,
      finalizedFeatures: [],
      zkMigrationReady: false,
    }
  },
  writeResponse(w, version, m) {
    const flexible = version >= FLEXIBLE_FROM
    w.int16(m.errorCode)
    const item = (x: KafkaWriter, v: ApiVersionsResponseApiVersion): void => {
      x.int16(v.apiKey).int16(v.minVersion).int16(v.maxVersion)
      if (flexible) x.taggedFields()
    }
    if (flexible) w.compactArray(m.apiKeys, item)
    else w.array(m.apiKeys, item)
    if (version >= 1) w.int32(m.throttleTimeMs)
    if (flexible) w.taggedFields()
  },
  requestHeaderVersion: (version) => (version >= FLEXIBLE_FROM ? 2 : 1),
  // KIP-511: the ApiVersions response header stays v0 at every version, so a client that does
  // not know the broker's versions yet can always read it.
  responseHeaderVersion: () => 0,
}
