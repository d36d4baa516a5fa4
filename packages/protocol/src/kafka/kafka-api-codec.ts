/**
 * One Kafka API's codecs, as the generator emits them (kafka/messages/index.ts). Readers return
 * complete messages (absent fields hold Kafka's defaults); writers take the Input shape, in which
 * fields with a default or absent in some versions may be left out, and write only the fields of
 * the version asked for.
 */
import type { KafkaReader } from './kafka-reader.js'
import type { KafkaWriter } from './kafka-writer.js'

export interface KafkaApiCodec<Req, Res, ReqIn = Req, ResIn = Res> {
  readonly apiKey: number
  /** Kafka's name of the API: 'Produce', 'ApiVersions', … */
  readonly name: string
  /** The versions the schema defines (a broker may support fewer: see its ApiVersions answer). */
  readonly minVersion: number
  readonly maxVersion: number
  /** The first flexible version (tagged fields, compact types); +Infinity when there is none. */
  readonly flexibleFrom: number
  readRequest(r: KafkaReader, version: number): Req
  writeRequest(w: KafkaWriter, version: number, m: ReqIn): void
  readResponse(r: KafkaReader, version: number): Res
  writeResponse(w: KafkaWriter, version: number, m: ResIn): void
  requestHeaderVersion(version: number): 1 | 2
  responseHeaderVersion(version: number): 0 | 1
}
