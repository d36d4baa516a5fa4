import { describe, expect, it } from 'vitest'
import { loadBrokerConfig } from './config.js'

describe('loadBrokerConfig', () => {
  it('merges env and flags (flags win) and coerces numbers and endpoint lists', () => {
    const r = loadBrokerConfig(['--broker-id', '3', '--port=0', '--metadata-endpoints', 'a:1, b:2'], {
      SLUICE_BROKER_ID: '9',
      SLUICE_DATA_DIR: '/tmp/x',
      SLUICE_HEARTBEAT_INTERVAL_MS: '500',
    })
    // toMatchObject: other settings (retention, ...) have defaults of their own.
    expect(r).toMatchObject({
      ok: true,
      config: {
        brokerId: 3,
        host: '0.0.0.0',
        port: 0,
        dataDir: '/tmp/x',
        metadataEndpoints: ['a:1', 'b:2'],
        sessionTimeoutMs: 9000,
        heartbeatIntervalMs: 500,
        logLevel: 'info',
        replicaLagMaxMs: 30_000,
        replicaFetchWaitMaxMs: 500,
        replicaFetchMinBytes: 1,
        replicaFetchMaxBytes: 1024 * 1024,
        highWatermarkCheckpointIntervalMs: 5000,
        replicaConnectOverrides: {},
      },
    })
  })

  it('lists every problem at once', () => {
    const r = loadBrokerConfig(['--broker-id', '-1', '--port', 'x', '--bogus', '1'], {})
    expect(r.ok).toBe(false)
    if (r.ok) return
    const text = r.problems.join('\n')
    expect(text).toContain('unknown flag --bogus')
    expect(text).toContain('brokerId')
    expect(text).toContain('port')
    expect(text).toContain('dataDir')
    expect(text).toContain('metadataEndpoints')
  })

  it('rejects a heartbeat interval not below the session timeout', () => {
    const r = loadBrokerConfig(
      [
        '--broker-id',
        '1',
        '--data-dir',
        '/d',
        '--metadata-endpoints',
        'm:1',
        '--heartbeat-interval-ms',
        '5000',
        '--session-timeout-ms',
        '4000',
      ],
      {},
    )
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.problems.join('\n')).toContain('heartbeatIntervalMs must be smaller')
  })

  it('takes several data dirs from --data-dirs (Kafka log.dirs) and rejects a dir listed twice', () => {
    const base = ['--broker-id', '1', '--metadata-endpoints', 'm:1']
    const r = loadBrokerConfig([...base, '--data-dirs', '/a, /b'], {})
    expect(r.ok && r.config.dataDirs).toEqual(['/a', '/b'])
    const twice = loadBrokerConfig([...base, '--data-dirs', '/a,/a'], {})
    expect(twice.ok).toBe(false)
    if (!twice.ok) expect(twice.problems.join('\n')).toContain('listed twice')
    const none = loadBrokerConfig(base, {})
    expect(none.ok).toBe(false)
    if (!none.ok) expect(none.problems.join('\n')).toContain('--data-dirs')
  })

  it('parses replica connect overrides from a flag or the environment and rejects bad entries', () => {
    const base = ['--broker-id', '1', '--data-dir', '/d', '--metadata-endpoints', 'm:1']
    const r = loadBrokerConfig([...base, '--replica-connect-overrides', '2=127.0.0.1:40001, 3=127.0.0.1:40002'], {})
    expect(r.ok && r.config.replicaConnectOverrides).toEqual({ 2: '127.0.0.1:40001', 3: '127.0.0.1:40002' })
    const e = loadBrokerConfig(base, { SLUICE_REPLICA_CONNECT_OVERRIDES: '7=h:9' })
    expect(e.ok && e.config.replicaConnectOverrides).toEqual({ 7: 'h:9' })
    const bad = loadBrokerConfig([...base, '--replica-connect-overrides', 'x=h:1,2=nohost'], {})
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.problems.join('\n')).toContain('replicaConnectOverrides')
  })

  it('takes the replica fetch transport from a flag or the environment, kafka by default, and rejects others', () => {
    const base = ['--broker-id', '1', '--data-dir', '/d', '--metadata-endpoints', 'm:1']
    const d = loadBrokerConfig(base, {})
    expect(d.ok && d.config.replicaFetchTransport).toBe('kafka')
    const f = loadBrokerConfig([...base, '--replica-fetch-transport', 'grpc'], {})
    expect(f.ok && f.config.replicaFetchTransport).toBe('grpc')
    const e = loadBrokerConfig(base, { SLUICE_REPLICA_FETCH_TRANSPORT: 'grpc' })
    expect(e.ok && e.config.replicaFetchTransport).toBe('grpc')
    const bad = loadBrokerConfig([...base, '--replica-fetch-transport', 'udp'], {})
    expect(bad.ok).toBe(false)
    if (!bad.ok) expect(bad.problems.join('\n')).toContain('replicaFetchTransport')
  })

  it('takes the Kafka listener settings from flags and the environment, with 9092 and 9192 as the defaults', () => {
    const base = ['--broker-id', '1', '--data-dir', '/d', '--metadata-endpoints', 'm:1']
    const defaults = loadBrokerConfig(base, {})
    expect(defaults.ok && [defaults.config.port, defaults.config.kafkaPort]).toEqual([9192, 9092])
    expect(defaults.ok && [defaults.config.kafkaHost, defaults.config.advertisedKafkaHost]).toEqual([
      undefined,
      undefined,
    ])
    expect(defaults.ok && defaults.config.advertisedKafkaPort).toBeUndefined()
    const flags = loadBrokerConfig(
      [
        ...base,
        '--kafka-port',
        '0',
        '--kafka-host',
        '127.0.0.2',
        '--advertised-kafka-host',
        'kafka.example',
        '--advertised-kafka-port=19092',
      ],
      {},
    )
    expect(flags).toMatchObject({
      ok: true,
      config: {
        kafkaPort: 0,
        kafkaHost: '127.0.0.2',
        advertisedKafkaHost: 'kafka.example',
        advertisedKafkaPort: 19092,
      },
    })
    const env = loadBrokerConfig(base, { SLUICE_KAFKA_PORT: '29092', SLUICE_ADVERTISED_KAFKA_HOST: 'k' })
    expect(env.ok && [env.config.kafkaPort, env.config.advertisedKafkaHost]).toEqual([29092, 'k'])
    const bad = loadBrokerConfig([...base, '--kafka-port', '70000', '--advertised-kafka-port', '0'], {})
    expect(bad.ok).toBe(false)
    if (!bad.ok) {
      expect(bad.problems.join('\n')).toContain('kafkaPort')
      expect(bad.problems.join('\n')).toContain('advertisedKafkaPort')
    }
  })
})
