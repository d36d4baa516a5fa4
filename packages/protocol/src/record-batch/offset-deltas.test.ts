import { describe, expect, it } from 'vitest'
import { SluiceError } from '../errors.js'
import { validateBatches } from './batch-header.js'
import { decodeRecordBatches } from './record-decoder.js'
import { encodeRecordBatch } from './record-encoder.js'

const rec = (v: string) => ({ key: Buffer.from(`k${v}`), value: Buffer.from(v), timestamp: 1000n })

describe('encodeRecordBatch offsetDeltas', () => {
  for (const compression of ['none', 'zstd'] as const) {
    it(`keeps given offset deltas with gaps and a larger lastOffsetDelta (${compression})`, () => {
      const buf = encodeRecordBatch([rec('a'), rec('b'), rec('c')], {
        compression,
        baseOffset: 100n,
        offsetDeltas: [1, 4, 5],
        lastOffsetDelta: 7,
      })
      expect(validateBatches(buf)).toHaveLength(1)
      const [batch] = decodeRecordBatches(buf)
      expect(batch!.header).toMatchObject({ baseOffset: 100n, lastOffsetDelta: 7, recordCount: 3 })
      expect(batch!.records.map((r) => [r.offset, r.value!.toString()])).toEqual([
        [101n, 'a'],
        [104n, 'b'],
        [105n, 'c'],
      ])
    })
  }

  it('rejects deltas that do not increase, do not match the records, or a lastOffsetDelta below the last record', () => {
    for (const options of [
      { offsetDeltas: [0, 0] },
      { offsetDeltas: [1] },
      { offsetDeltas: [-1, 2] },
      { offsetDeltas: [0, 3], lastOffsetDelta: 2 },
    ]) {
      expect(() => encodeRecordBatch([rec('a'), rec('b')], options), JSON.stringify(options)).toThrow(SluiceError)
    }
  })
})
