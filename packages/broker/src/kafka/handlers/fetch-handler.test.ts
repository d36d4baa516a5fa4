import { describe, expect, it } from 'vitest'
import { kafka } from '@sluice/protocol'
import { divergingEpochOf } from './fetch-handler.js'

/** Writes one v15 partition answer with `divergingEpoch` and reads it back, as a follower does. */
function throughTheWire(divergingEpoch: kafka.FetchResponseEpochEndOffsetInput | undefined) {
  const w = new kafka.KafkaWriter()
  kafka.FetchApi.writeResponse(w, 15, {
    sessionId: 0,
    responses: [
      {
        topicId: Buffer.alloc(16, 1),
        partitions: [{ partitionIndex: 0, errorCode: 0, highWatermark: 3n, divergingEpoch }],
      },
    ],
  })
  return kafka.FetchApi.readResponse(new kafka.KafkaReader(w.toBuffer()), 15).responses[0]!.partitions[0]!
    .divergingEpoch
}

describe('the Kafka Fetch answer to a follower', () => {
  it('carries a diverging epoch, no diverging epoch, and "no common epoch" distinguishably', () => {
    expect(throughTheWire(divergingEpochOf({ epoch: 4, endOffset: 3n }))).toEqual({ epoch: 4, endOffset: 3n })
    // None: the field is left out and reads as its default (-1, -1).
    expect(divergingEpochOf(undefined)).toBeUndefined()
    expect(throughTheWire(divergingEpochOf(undefined))).toEqual({ epoch: -1, endOffset: -1n })
    // The leader knows no epoch at or below the follower's: (-1, -1) would read as "none", so (-1, 0).
    expect(throughTheWire(divergingEpochOf({ epoch: -1, endOffset: -1n }))).toEqual({ epoch: -1, endOffset: 0n })
  })
})
