/**
 * Metrics and health end to end (issue 8, item 4): a spawned cluster with `--admin-port 0` on
 * every process, a produce/consume run through the SDK, then /metrics, /healthz and /readyz
 * scraped over HTTP and checked for real values: records in equal to what was produced, request
 * counters, log sizes, consumer lag as records are added, under-replication and leader elections
 * while a broker is down, the ISR expanding when it returns, and readiness turning 503 on a
 * broker whose metadata service is gone.
 */
import { connect, type SluiceClient } from '@sluice/client'
import { spawnBroker, spawnCluster, waitFor, type SpawnedCluster, type SpawnedProcess } from '@sluice/testkit'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const TOPIC = 'metrics-orders'
const GROUP = 'metrics-group'
const RECORDS = 500

interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

function parseMetrics(text: string): Sample[] {
  const out: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (m === null) throw new Error(`unparseable metrics line: ${line}`)
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!
    out.push({ name: m[1]!, labels, value: Number(m[3]) })
  }
  return out
}

async function scrape(p: SpawnedProcess): Promise<Sample[]> {
  const res = await fetch(`http://127.0.0.1:${p.adminPort!}/metrics`)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/)
  return parseMetrics(await res.text())
}

/** Sum of the samples named `name` whose labels include `labels`. */
function sum(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0)
}

function has(samples: readonly Sample[], name: string): boolean {
  return samples.some((s) => s.name === name)
}

async function get(p: SpawnedProcess, path: string): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${p.adminPort!}${path}`)
  return { status: res.status, body: await res.text() }
}

async function sumOver(
  processes: readonly SpawnedProcess[],
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  let total = 0
  for (const p of processes) total += sum(await scrape(p), name, labels)
  return total
}

describe('metrics and health endpoints', () => {
  let cluster: SpawnedCluster
  let client: SluiceClient
  let restarted: SpawnedProcess | undefined

  beforeAll(async () => {
    cluster = await spawnCluster({
      brokers: 2,
      adminPorts: true,
      metadataArgs: [
        '--group-min-session-timeout-ms',
        '500',
        '--group-initial-rebalance-delay-ms',
        '0',
        '--offsets-topic-num-partitions',
        '4',
      ],
      brokerArgs: ['--session-timeout-ms', '6000', '--heartbeat-interval-ms', '500', '--replica-lag-max-ms', '10000'],
    })
    client = await connect({ bootstrap: cluster.bootstrap, clientId: 'metrics-e2e' })
  })

  afterAll(async () => {
    await client?.close()
    await restarted?.stop()
    await cluster?.stop()
  })

  it('serves /healthz and /readyz on every process, and 404 elsewhere', async () => {
    for (const p of [cluster.metadata, ...cluster.brokers]) {
      expect(p.adminPort, p.name).toBeGreaterThan(0)
      expect(await get(p, '/healthz')).toEqual({ status: 200, body: 'ok\n' })
      // Registered brokers are ready at once; waitFor only absorbs a slow CI machine.
      const ready = await waitFor(
        async () => {
          const r = await get(p, '/readyz')
          return r.status === 200 ? r : undefined
        },
        { timeoutMs: 10_000, intervalMs: 100, description: `${p.name} ready` },
      )
      expect(ready.body).toBe('{"ready":true}\n')
      expect((await get(p, '/nothing-here')).status).toBe(404)
    }
  })

  it('counts produced and consumed records, requests, log sizes and committed offsets with real values', async () => {
    await client.admin().createTopics([{ name: TOPIC, numPartitions: 2, replicationFactor: 2 }])
    const producer = client.producer({ acks: 'all' })
    for (let i = 0; i < RECORDS; i += 50) {
      await producer.send({
        topic: TOPIC,
        records: Array.from({ length: 50 }, (_, j) => ({ key: `k${i + j}`, value: `order ${i + j}` })),
      })
    }
    const consumer = client.consumer({
      groupId: GROUP,
      autoCommit: false,
      autoOffsetReset: 'earliest',
      sessionTimeoutMs: 3000,
      heartbeatIntervalMs: 200,
      maxWaitMs: 100,
    })
    consumer.subscribe({ topics: [TOPIC] })
    let seen = 0
    for await (const _m of consumer) {
      if (++seen === RECORDS) break
    }
    await consumer.commit()
    await consumer.close()

    const brokers = cluster.brokers
    expect(await sumOver(brokers, 'sluice_topic_records_in_total', { topic: TOPIC })).toBe(RECORDS)
    expect(await sumOver(brokers, 'sluice_topic_bytes_in_total', { topic: TOPIC })).toBeGreaterThan(RECORDS * 10)
    expect(await sumOver(brokers, 'sluice_topic_records_out_total', { topic: TOPIC })).toBeGreaterThanOrEqual(RECORDS)
    expect(await sumOver(brokers, 'sluice_topic_bytes_out_total', { topic: TOPIC })).toBeGreaterThan(RECORDS * 10)
    // The SDK sends Produce to the brokers' Kafka listeners by default and over gRPC otherwise
    // (ConnectOptions.dataTransport); the listener counts its requests under service "kafka".
    const produced = async (service: string): Promise<number> =>
      await sumOver(brokers, 'sluice_rpc_requests_total', { service, method: 'Produce', code: 'OK' })
    expect((await produced('sluice.v1.Broker')) + (await produced('kafka'))).toBeGreaterThanOrEqual(RECORDS / 50)
    expect(
      await sumOver(brokers, 'sluice_rpc_request_duration_seconds_count', { method: 'Fetch', code: 'OK' }),
    ).toBeGreaterThan(0)
    expect(await sumOver(brokers, 'sluice_rpc_requests_total', { method: 'Metadata', code: 'OK' })).toBeGreaterThan(0)
    // Both replicas of both partitions hold the records.
    for (const partition of ['0', '1']) {
      for (const b of brokers) {
        const s = await scrape(b)
        expect(sum(s, 'sluice_log_size_bytes', { topic: TOPIC, partition }), `${b.name} p${partition}`).toBeGreaterThan(
          0,
        )
        expect(sum(s, 'sluice_log_segments', { topic: TOPIC, partition })).toBe(1)
      }
    }
    expect(await sumOver(brokers, 'sluice_partition_high_watermark', { topic: TOPIC })).toBe(RECORDS)
    expect(await sumOver(brokers, 'sluice_under_replicated_partitions')).toBe(0)
    const one = await scrape(brokers[0]!)
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'sluice_isr_shrinks_total',
      'sluice_isr_expands_total',
      'sluice_broker_registered',
      'process_cpu_seconds_total',
    ]) {
      expect(has(one, name), name).toBe(true)
    }
    expect(sum(one, 'sluice_broker_registered')).toBe(1)

    const meta = await scrape(cluster.metadata)
    expect(sum(meta, 'sluice_controller_active')).toBe(1)
    expect(sum(meta, 'sluice_controller_epoch')).toBeGreaterThanOrEqual(1)
    expect(sum(meta, 'sluice_live_brokers')).toBe(2)
    expect(sum(meta, 'sluice_offline_partitions')).toBe(0)
    expect(sum(meta, 'sluice_group_committed_offset', { group: GROUP, topic: TOPIC })).toBe(RECORDS)
    expect(sum(meta, 'sluice_group_rebalances_total', { group: GROUP })).toBeGreaterThanOrEqual(1)
    expect(
      sum(meta, 'sluice_rpc_requests_total', {
        service: 'sluice.v1.GroupCoordinator',
        method: 'JoinGroup',
        code: 'OK',
      }),
    ).toBeGreaterThanOrEqual(1)
    expect(
      sum(meta, 'sluice_rpc_requests_total', { service: 'sluice.v1.Metadata', method: 'CreateTopics', code: 'OK' }),
    ).toBeGreaterThanOrEqual(1)
    expect(has(meta, 'nodejs_eventloop_lag_seconds')).toBe(true)
    expect(sum(meta, 'sluice_consumer_group_lag', { group: GROUP, topic: TOPIC })).toBe(0)

    // Every series the Grafana dashboard queries exists in a real scrape.
    const dashboard = await readFile(new URL('../../deploy/grafana/sluice-dashboard.json', import.meta.url), 'utf8')
    expect((JSON.parse(dashboard) as { panels: unknown[] }).panels.length).toBeGreaterThan(20)
    const queried = new Set([...dashboard.matchAll(/\b((?:sluice|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1]!))
    // Names as declared (# TYPE), since a labelled counter has no sample before its first event.
    const declared = async (p: SpawnedProcess): Promise<string[]> =>
      [
        ...(await (await fetch(`http://127.0.0.1:${p.adminPort!}/metrics`)).text()).matchAll(/^# TYPE (\S+) (\S+)$/gm),
      ].flatMap((m) => (m[2] === 'histogram' ? [m[1]!, `${m[1]!}_bucket`, `${m[1]!}_sum`, `${m[1]!}_count`] : [m[1]!]))
    const scraped = new Set([...(await declared(cluster.metadata)), ...(await declared(brokers[0]!))])
    expect(queried.size).toBeGreaterThan(25)
    expect([...queried].filter((n) => !scraped.has(n))).toEqual([])
  })

  it('reports consumer lag as records arrive after the committed offsets', async () => {
    await client
      .producer({ acks: 'all' })
      .send({ topic: TOPIC, records: Array.from({ length: 20 }, (_, i) => ({ key: `late${i}`, value: 'x' })) })
    // End offsets are reused for a few seconds between scrapes, so wait for the refresh.
    await waitFor(
      async () =>
        sum(await scrape(cluster.metadata), 'sluice_consumer_group_lag', { group: GROUP, topic: TOPIC }) === 20,
      { timeoutMs: 20_000, intervalMs: 250, description: 'a lag of 20 records' },
    )
  })

  it('shows under-replication and leader elections while a broker is down, and the ISR expanding when it returns', async () => {
    const [b1, b2] = cluster.brokers as [SpawnedProcess, SpawnedProcess]
    b2.kill('SIGKILL')
    await b2.exited
    await waitFor(
      async () => {
        const meta = await scrape(cluster.metadata)
        return (
          sum(meta, 'sluice_live_brokers') === 1 &&
          sum(meta, 'sluice_cluster_under_replicated_partitions') > 0 &&
          sum(meta, 'sluice_leader_elections_total') >= 1 &&
          sum(meta, 'sluice_offline_partitions') === 0
        )
      },
      { timeoutMs: 20_000, intervalMs: 200, description: 'the controller to see broker 2 gone' },
    )
    await waitFor(async () => sum(await scrape(b1), 'sluice_under_replicated_partitions') > 0, {
      timeoutMs: 10_000,
      intervalMs: 200,
      description: 'broker 1 leading under-replicated partitions',
    })

    restarted = await spawnBroker({
      brokerId: 2,
      dataDir: path.join(cluster.dataDir, 'broker-2'),
      metadataEndpoints: [cluster.metadata.endpoint],
      adminPort: 0,
      extraArgs: ['--session-timeout-ms', '6000', '--heartbeat-interval-ms', '500', '--replica-lag-max-ms', '10000'],
    })
    const back = restarted
    await waitFor(async () => (await get(back, '/readyz')).status === 200, {
      timeoutMs: 20_000,
      intervalMs: 200,
      description: 'restarted broker 2 ready',
    })
    await waitFor(
      async () => {
        const s = await scrape(b1)
        return sum(s, 'sluice_isr_expands_total') >= 1 && sum(s, 'sluice_under_replicated_partitions') === 0
      },
      { timeoutMs: 30_000, intervalMs: 250, description: 'broker 1 to take broker 2 back into the ISRs' },
    )
    await waitFor(async () => sum(await scrape(cluster.metadata), 'sluice_cluster_under_replicated_partitions') === 0, {
      timeoutMs: 20_000,
      intervalMs: 250,
      description: 'no under-replicated partition left',
    })
  })

  it('turns /readyz to 503 on a broker whose metadata service is gone, while /healthz stays 200', async () => {
    const b1 = cluster.brokers[0]!
    cluster.metadata.kill('SIGKILL')
    await cluster.metadata.exited
    const notReady = await waitFor(
      async () => {
        const r = await get(b1, '/readyz')
        return r.status === 503 ? r : undefined
      },
      { timeoutMs: 15_000, intervalMs: 200, description: 'broker 1 not ready' },
    )
    expect(JSON.parse(notReady.body)).toMatchObject({
      ready: false,
      reason: expect.stringMatching(/metadata|registered/),
    })
    expect(await get(b1, '/healthz')).toEqual({ status: 200, body: 'ok\n' })
    expect(sum(await scrape(b1), 'sluice_broker_registered')).toBe(0)
  })
})
