import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { isZeroTopicId, kafkaTopicId } from './topic-id.js'

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
