import { describe, expect, it } from 'vitest'
import { formatConfigHelp } from '@sluice/server-kit'
import { BROKER_CONFIG_KEYS, brokerConfigSchema } from './config.js'

describe('sluice broker --help', () => {
  const text = formatConfigHelp('usage: sluice broker', brokerConfigSchema)

  it('lists every config key as a flag and an environment variable, with its description and default', () => {
    for (const key of BROKER_CONFIG_KEYS) {
      const flag = `--${key.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}`
      expect(
        text.split('\n').some((line) => line.trimStart().startsWith(`${flag} `)),
        flag,
      ).toBe(true)
    }
    const port = text.split('\n').find((l) => l.trimStart().startsWith('--port '))!
    expect(port).toContain('SLUICE_PORT')
    expect(port).toContain('(default 9192)')
    // Kafka's own port belongs to the Kafka listener (docs/decisions.md).
    const kafkaPort = text.split('\n').find((l) => l.trimStart().startsWith('--kafka-port '))!
    expect(kafkaPort).toContain('SLUICE_KAFKA_PORT')
    expect(kafkaPort).toContain('(default 9092)')
    for (const flag of ['--kafka-host ', '--advertised-kafka-host ', '--advertised-kafka-port ']) {
      expect(text.split('\n').find((l) => l.trimStart().startsWith(flag))).toMatch(/SLUICE_\w*KAFKA\w*\s+\S/)
    }
    expect(text.split('\n').find((l) => l.trimStart().startsWith('--broker-id '))).toMatch(
      /SLUICE_BROKER_ID\s+This broker's id/,
    )
  })
})
