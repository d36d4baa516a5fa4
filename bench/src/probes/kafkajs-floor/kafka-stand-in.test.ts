import { Kafka, logLevel } from 'kafkajs'
import { afterEach, describe, expect, it } from 'vitest'
import { startKafkaStandIn, type StandIn } from './kafka-stand-in.js'

describe('Kafka stand-in (the kafkajs floor probe)', () => {
  let standIn: StandIn | undefined
  afterEach(async () => {
    await standIn?.close()
  })

  it('answers a real kafkajs producer, counting offsets per partition', async () => {
    standIn = await startKafkaStandIn(3)
    const kafka = new Kafka({ brokers: [`127.0.0.1:${standIn.port}`], logLevel: logLevel.NOTHING })
    const producer = kafka.producer({ allowAutoTopicCreation: false })
    await producer.connect()
    try {
      const first = await producer.send({
        topic: 't',
        acks: -1,
        messages: [
          { value: 'a', partition: 2 },
          { value: 'b', partition: 2 },
        ],
      })
      const second = await producer.send({ topic: 't', acks: -1, messages: [{ value: 'c', partition: 2 }] })
      expect(first).toEqual([expect.objectContaining({ topicName: 't', partition: 2, errorCode: 0, baseOffset: '0' })])
      expect(second).toEqual([expect.objectContaining({ partition: 2, baseOffset: '2' })])
    } finally {
      await producer.disconnect()
    }
  })
})
