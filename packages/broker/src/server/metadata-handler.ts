/**
 * Metadata and DeleteRecords (proto/sluice/v1/broker.proto). Metadata is answered from the
 * broker's metadata cache; DeleteRecords is not implemented yet and answers UNSUPPORTED_VERSION
 * per partition, so clients get a typed answer rather than a failed call.
 */
import type { wire } from '@sluice/protocol'
import { errorFields, type BrokerContext } from './context.js'

export function handleMetadata (ctx: BrokerContext, req: wire.MetadataRequest__Output): wire.MetadataResponse {
  return ctx.cache.metadataResponse(req)
}

export function handleDeleteRecords (_ctx: BrokerContext, req: wire.DeleteRecordsRequest__Output): wire.DeleteRecordsResponse {
  return {
    topics: req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        ...errorFields('UNSUPPORTED_VERSION', 'DeleteRecords is not supported by this broker yet'),
        low_watermark: '-1',
      })),
    })),
  }
}
