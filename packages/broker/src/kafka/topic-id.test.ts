import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { isZeroTopicId, kafkaTopicId, topicIdText } from './topic-id.js'

describe('kafkaTopicId', () => {
  it("reads Kafka's base64url text form and the hyphenated UUID form", () => {
    const bytes = randomBytes(16)
    expect(kafkaTopicId(bytes.toString('base64url'))).toEqual(bytes)
    expect(kafkaTopicId('0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0')).toEqual(
      Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex'),
    )
  })

  it('answers the zero UUID for no id and for text that is not a 16-byte id', () => {
    for (const id of [
      undefined,
      '',
      'topic-1',
      'AAAA',
      `${randomBytes(16).toString('base64url')}x`,
      'zz1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0',
    ]) {
      const out = kafkaTopicId(id)
      expect(out.length).toBe(16)
      expect(isZeroTopicId(out)).toBe(true)
    }
  })
})

describe('topicIdText', () => {
  it('gives the base64url text of each id, whatever ids came before and whatever happens to the bytes after', () => {
    const ids = Array.from({ length: 200 }, () => randomBytes(16))
    // Two ids whose int32 words xor to the same value share a bucket and must still differ.
    const a = Buffer.from('00000001000000020000000300000004', 'hex')
    const b = Buffer.from('00000004000000030000000200000001', 'hex')
    for (const id of [...ids, a, b, ...ids, b, a]) expect(topicIdText(id)).toBe(id.toString('base64url'))
    const view = Buffer.from(ids[0]!)
    const text = topicIdText(view)
    view.fill(0) // the request frame it came from is reused
    expect(topicIdText(ids[0]!)).toBe(text)
    expect(topicIdText(view)).toBe(Buffer.alloc(16).toString('base64url'))
  })
})
