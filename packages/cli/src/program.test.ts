import { SluiceError } from '@sluice/protocol'
import { describe, expect, it } from 'vitest'
import { runCli, type CommandHandlers } from './program.js'
import { testIo } from './test-io.js'

/** What `sluice dev` passes its handler without flags. */
const DEV_DEFAULT_ARGS = {
  brokers: 3,
  dataDir: './.sluice/dev',
  port: 9192,
  kafkaPort: 9092,
  metadataPort: 9091,
  console: true,
  consolePort: 8080,
}

/** Handlers that record what they were called with. */
function recorder(result: number | undefined = undefined): { calls: unknown[][]; handlers: CommandHandlers } {
  const calls: unknown[][] = []
  const rec =
    (name: string) =>
    async (...args: unknown[]) => {
      // The io object is not interesting to compare; keep the context's bootstrap and json.
      calls.push([
        name,
        ...args.map((a) =>
          (a as { io?: unknown })?.io !== undefined
            ? { bootstrap: (a as { bootstrap: unknown }).bootstrap, json: (a as { json: unknown }).json }
            : a,
        ),
      ])
      return result
    }
  const handlers: CommandHandlers = {
    dev: async (args) => {
      calls.push(['dev', args])
      return result
    },
    topicsCreate: rec('topicsCreate'),
    topicsList: rec('topicsList'),
    topicsDescribe: rec('topicsDescribe'),
    topicsDelete: rec('topicsDelete'),
    topicsAddPartitions: rec('topicsAddPartitions'),
    produce: rec('produce'),
    consume: rec('consume'),
    clusterDescribe: rec('clusterDescribe'),
    topicsAlter: rec('topicsAlter'),
    topicsDeleteRecords: rec('topicsDeleteRecords'),
    topicsElectLeaders: rec('topicsElectLeaders'),
    groupsList: rec('groupsList'),
    groupsDescribe: rec('groupsDescribe'),
    streamsDescribe: rec('streamsDescribe'),
    connect: rec('connect'),
    console: rec('console'),
    groupsResetOffsets: rec('groupsResetOffsets'),
    groupsDelete: rec('groupsDelete'),
    server: rec('server'),
  }
  return { calls, handlers }
}

const local = { bootstrap: ['127.0.0.1:9192'], json: false }

describe('runCli argument parsing', () => {
  it('applies dev defaults and parses overrides', async () => {
    const { calls, handlers } = recorder()
    expect(await runCli(['dev'], testIo(), handlers)).toBe(0)
    expect(
      await runCli(
        [
          'dev',
          '--brokers',
          '1',
          '--data-dir',
          '/tmp/x',
          '--port',
          '19092',
          '--kafka-port',
          '19093',
          '--metadata-port',
          '19091',
          '--console-port',
          '18080',
          '--no-console',
        ],
        testIo(),
        handlers,
      ),
    ).toBe(0)
    expect(calls).toEqual([
      ['dev', DEV_DEFAULT_ARGS],
      [
        'dev',
        {
          brokers: 1,
          dataDir: '/tmp/x',
          port: 19092,
          kafkaPort: 19093,
          metadataPort: 19091,
          console: false,
          consolePort: 18080,
        },
      ],
    ])
  })

  it('parses dev --metadata and rejects an unknown store', async () => {
    const { calls, handlers } = recorder()
    expect(await runCli(['dev', '--metadata', 'zookeeper'], testIo(), handlers)).toBe(0)
    expect(calls).toEqual([['dev', { ...DEV_DEFAULT_ARGS, metadata: 'zookeeper' }]])
    const io = testIo()
    expect(await runCli(['dev', '--metadata', 'etcd'], io, handlers)).not.toBe(0)
    expect(io.err()).toMatch(/--metadata.*etcd|etcd.*--metadata/)
    expect(calls).toHaveLength(1)
  })

  it('parses topics create with repeated --config', async () => {
    const { calls, handlers } = recorder()
    const code = await runCli(
      [
        'topics',
        'create',
        'orders',
        '--partitions',
        '6',
        '--replication-factor',
        '3',
        '--config',
        'retention.ms=1000',
        '--config',
        'cleanup.policy=compact',
      ],
      testIo(),
      handlers,
    )
    expect(code).toBe(0)
    expect(calls).toEqual([
      [
        'topicsCreate',
        local,
        'orders',
        { partitions: 6, replicationFactor: 3, config: { 'retention.ms': '1000', 'cleanup.policy': 'compact' } },
      ],
    ])
  })

  it('takes --bootstrap and --json before or after the subcommand, and SLUICE_BOOTSTRAP from the env', async () => {
    const { calls, handlers } = recorder()
    await runCli(['--bootstrap', 'a:1,b:2', 'topics', 'list'], testIo(), handlers)
    await runCli(['topics', 'describe', 'orders', '--json', '--bootstrap', 'c:3'], testIo(), handlers)
    await runCli(['cluster', 'describe'], testIo({ env: { SLUICE_BOOTSTRAP: 'd:4' } }), handlers)
    expect(calls).toEqual([
      ['topicsList', { bootstrap: ['a:1', 'b:2'], json: false }],
      ['topicsDescribe', { bootstrap: ['c:3'], json: true }, 'orders'],
      ['clusterDescribe', { bootstrap: ['d:4'], json: false }],
    ])
  })

  it('parses topics elect-leaders and describe --under-replicated', async () => {
    const { calls, handlers } = recorder()
    expect(await runCli(['topics', 'elect-leaders'], testIo(), handlers)).toBe(0)
    expect(
      await runCli(['topics', 'elect-leaders', 'orders', '--partition', '3', '--unclean'], testIo(), handlers),
    ).toBe(0)
    expect(await runCli(['topics', 'describe', '--under-replicated'], testIo(), handlers)).toBe(0)
    const io = testIo()
    expect(await runCli(['topics', 'elect-leaders', '--partition', '1'], io, handlers)).toBe(1)
    expect(io.err()).toContain('--partition needs a topic name')
    expect(calls).toEqual([
      ['topicsElectLeaders', local, undefined, { unclean: false }],
      ['topicsElectLeaders', local, 'orders', { partition: 3, unclean: true }],
      ['topicsDescribe', local, undefined, { configs: false, underReplicated: true }],
    ])
  })

  it('parses produce and consume options', async () => {
    const { calls, handlers } = recorder()
    await runCli(
      ['produce', 'orders', '--key-separator', ':', '--acks', '1', '--compression', 'lz4'],
      testIo(),
      handlers,
    )
    await runCli(
      [
        'consume',
        'orders',
        '--partition',
        '2',
        '--offset',
        '17',
        '--max-messages',
        '5',
        '--print-key',
        '--print-offset',
      ],
      testIo(),
      handlers,
    )
    await runCli(['consume', 'orders', '--from-timestamp', '2024-01-01T00:00:00Z', '--follow'], testIo(), handlers)
    expect(calls).toEqual([
      ['produce', local, 'orders', { keySeparator: ':', acks: 1, compression: 'lz4' }],
      [
        'consume',
        local,
        'orders',
        {
          partition: 2,
          offset: 17n,
          maxMessages: 5,
          printKey: true,
          printOffset: true,
          fromBeginning: false,
          follow: false,
        },
      ],
      [
        'consume',
        local,
        'orders',
        { fromTimestamp: 1704067200000n, follow: true, fromBeginning: false, printKey: false, printOffset: false },
      ],
    ])
  })

  it('rejects bad values with exit 1 and a message, without calling the handler', async () => {
    const { calls, handlers } = recorder()
    const io = testIo()
    expect(await runCli(['topics', 'create', 'x', '--partitions', '0'], io, handlers)).toBe(1)
    expect(io.err()).toContain("option '--partitions <n>' argument '0' is invalid")
    const io2 = testIo()
    expect(await runCli(['consume', 't', '--from-beginning', '--offset', '3'], io2, handlers)).toBe(1)
    expect(io2.err()).toContain('cannot be used with')
    expect(await runCli(['topics', 'add-partitions', 't'], testIo(), handlers)).toBe(1)
    expect(await runCli(['--bootstrap', 'nohost', 'topics', 'list'], testIo(), handlers)).toBe(1)
    expect(await runCli(['nonsense'], testIo(), handlers)).toBe(1)
    expect(calls).toEqual([])
  })

  it('prints SluiceErrors as CODE: message without a stack, and returns handler exit codes', async () => {
    const { handlers } = recorder(3)
    expect(await runCli(['topics', 'list'], testIo(), handlers)).toBe(3)
    handlers.topicsCreate = async () => {
      throw new SluiceError('INVALID_TOPIC_EXCEPTION', 'topic name "bad name!" is invalid')
    }
    const io = testIo()
    expect(await runCli(['topics', 'create', 'bad name!'], io, handlers)).toBe(1)
    expect(io.err()).toBe('error: INVALID_TOPIC_EXCEPTION: topic name "bad name!" is invalid\n')
  })

  it('prints help with exit 0', async () => {
    const io = testIo()
    expect(await runCli(['--help'], io, recorder().handlers)).toBe(0)
    expect(io.out()).toContain('topics')
    expect(io.out()).toContain('consume')
  })
})
