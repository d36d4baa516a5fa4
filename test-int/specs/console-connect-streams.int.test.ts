/**
 * The console's connectors and streams pages on a REAL in-process cluster: /api/connect/** proxied
 * over HTTP to a real Connect worker (started in-process here, reached only through its REST URL),
 * a file source connector created, read, paused, resumed, restarted, reconfigured and deleted
 * through the console, the worker's errors in the console's shape, and 404 without a worker;
 * and a running streams application (one instance, a count with a repartition) listed with its
 * state and lag and described task by task as `sluice streams describe` shows it.
 */
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import type { Logger } from '@sluice/client'
import { startConnectWorker, type RunningConnectWorker } from '@sluice/connect'
import { startConsoleServer, type ConsoleServer } from '@sluice/console'
import { Serdes, StreamsBuilder } from '@sluice/streams'
import { until, type RealCluster } from '../src/client/real-cluster.js'
import { startStreamsCluster, startTestStreamsApp } from '../src/client/streams-cluster.js'
import { http, type Json } from '../src/console-http.js'

let cluster: RealCluster
let worker: RunningConnectWorker
let server: ConsoleServer
let dir: string

const api = async (method: string, path: string, body?: unknown) => await http(server.url, method, path, body)

beforeAll(async () => {
  cluster = await startStreamsCluster('sluice-console-connect-', 2)
  dir = await mkdtemp(join(tmpdir(), 'sluice-console-connect-files-'))
  worker = await startConnectWorker(
    {
      client: cluster.client,
      groupId: `console-connect-${randomUUID().slice(0, 8)}`,
      logger: keptLogger({}),
      offsetStoragePartitions: 2,
      statusStoragePartitions: 2,
      sessionTimeoutMs: 2000,
      heartbeatIntervalMs: 200,
      offsetFlushIntervalMs: 200,
    },
    { port: 0 },
  )
  server = await startConsoleServer({ client: cluster.client, port: 0, connectUrl: worker.url })
}, 60_000)

afterAll(async () => {
  await server?.close()
  await worker?.stop()
  await cluster?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

/** The worker's info, warn and error lines, kept to explain a wait that times out. */
const workerLines: string[] = []
function keptLogger(bindings: Record<string, unknown>): Logger {
  const keep =
    (level: string) =>
    (obj: unknown, msg?: string): void => {
      workerLines.push(
        `${new Date().toISOString()} ${level} ${msg ?? ''} ${JSON.stringify({ ...bindings, obj }, errText)}`,
      )
    }
  return {
    debug: () => {},
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    child: (b) => keptLogger({ ...bindings, ...b }),
  }
}
const errText = (_k: string, v: unknown): unknown => (v instanceof Error ? `${v.name}: ${v.message}` : v)

/** Waits until the connector reports `state`; a timeout says what it reported last and what the worker logged. */
async function untilState(what: string, name: string, state: string): Promise<void> {
  let last: unknown
  try {
    await until(what, async () => {
      last = (await api('GET', `/api/connect/connectors/${name}`)).body?.status
      return (last as Json | undefined)?.connector?.state === state
    })
  } catch (err) {
    const lines = workerLines.slice(-30).join('\n')
    throw new Error(`${(err as Error).message}; last status ${JSON.stringify(last)}; the worker logged:\n${lines}`)
  }
}

describe('console: connectors through a real Connect worker', () => {
  it('creates, reads, pauses, resumes, restarts, reconfigures and deletes a connector', async () => {
    const input = join(dir, 'in.txt')
    await writeFile(input, 'one\ntwo\n')
    const name = `lines-${randomUUID().slice(0, 8)}`
    const topic = `lines-${randomUUID().slice(0, 8)}`
    const config = {
      'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector',
      file: input,
      topic,
      'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    }
    const made = await api('POST', '/api/connect/connectors', { name, config })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    expect(made.body.name).toBe(name)
    await untilState('the connector runs', name, 'RUNNING')

    const list = await api('GET', '/api/connect/connectors?expand=status&expand=info&other=dropped')
    expect(list.status).toBe(200)
    expect(list.body[name].status.connector.state).toBe('RUNNING')
    expect(list.body[name].info.config.file).toBe(input)
    const one = await api('GET', `/api/connect/connectors/${name}`)
    expect(one.body).toMatchObject({ name, config: { file: input, topic }, status: { name, connector: {} } })
    expect((await api('GET', `/api/connect/connectors/${name}/config`)).body.topic).toBe(topic)
    expect((await api('GET', `/api/connect/connectors/${name}/status`)).body.connector.state).toBe('RUNNING')
    expect((await api('GET', `/api/connect/connectors/${name}/tasks`)).body).toHaveLength(1)
    expect((await api('GET', '/api/connect')).body.version).toEqual(expect.any(String))
    // The records reached the topic, as the message browser shows them.
    await until('the lines in the topic', async () => {
      const m = await api('GET', `/api/topics/${topic}/messages`)
      return m.status === 200 && m.body.messages.map((x: Json) => x.value.text).join(',') === 'one,two'
    })

    expect((await api('PUT', `/api/connect/connectors/${name}/pause`)).status).toBe(202)
    await untilState('paused', name, 'PAUSED')
    expect((await api('PUT', `/api/connect/connectors/${name}/resume`)).status).toBe(202)
    await untilState('running again', name, 'RUNNING')
    const restart = await api('POST', `/api/connect/connectors/${name}/restart?includeTasks=true&onlyFailed=false`)
    expect([200, 202]).toContain(restart.status)
    expect((await api('POST', `/api/connect/connectors/${name}/tasks/0/restart`)).status).toBe(200)
    await untilState('the task runs after its restart', name, 'RUNNING')
    const reconfigured = await api('PUT', `/api/connect/connectors/${name}/config`, { ...config, 'batch.size': '10' })
    expect(reconfigured.status, JSON.stringify(reconfigured.body)).toBe(200)
    expect((await api('GET', `/api/connect/connectors/${name}/config`)).body['batch.size']).toBe('10')

    const bad = await api('PUT', `/api/connect/connectors/${name}/config`, { ...config, 'batch.size': 'many' })
    expect(bad.status).toBe(400)
    expect(bad.body).toEqual({
      error_code: 'CONNECT_ERROR',
      message: expect.stringContaining('batch.size'),
      error: { code: 'CONNECT_ERROR', message: bad.body.message },
    })
    expect((await api('PUT', `/api/connect/connectors/${name}/config`, ['not', 'an', 'object'])).status).toBe(400)

    // Stopped, a connector's offsets can be read (a source's: the file position).
    expect((await api('PUT', `/api/connect/connectors/${name}/stop`)).status).toBe(200)
    await untilState('stopped', name, 'STOPPED')
    const offsets = await api('GET', `/api/connect/connectors/${name}/offsets`)
    expect(offsets.status).toBe(200)
    expect(offsets.body.offsets).toEqual(expect.any(Array))
    expect((await api('DELETE', `/api/connect/connectors/${name}`)).status).toBe(200)
    const gone = await api('GET', `/api/connect/connectors/${name}`)
    expect([gone.status, gone.body.error_code]).toEqual([404, 'CONNECT_ERROR'])
    expect((await api('GET', '/api/connect/connectors')).body).not.toContain(name)
  })

  it('forwards only its own routes, and says 404 without a worker and 502 when the worker is down', async () => {
    expect((await api('GET', '/api/connect/connectors/x/offsets-and-more')).status).toBe(404)
    expect((await api('GET', '/api/connect/admin/loggers')).status).toBe(404)
    const plugins = await api('GET', '/api/connect/connector-plugins')
    expect(plugins.body.map((p: Json) => p.class)).toContain('org.apache.kafka.connect.file.FileStreamSourceConnector')

    const without = await startConsoleServer({ client: cluster.client, port: 0 })
    onTestFinished(async () => {
      await without.close()
    })
    const none = await http(without.url, 'GET', '/api/connect/connectors')
    expect([none.status, none.body.error_code]).toEqual([404, 'CONNECT_NOT_CONFIGURED'])
    expect(none.body.message).toMatch(/--connect-url/)

    const nowhere = await startConsoleServer({ client: cluster.client, port: 0, connectUrl: 'http://127.0.0.1:9' })
    onTestFinished(async () => {
      await nowhere.close()
    })
    const down = await http(nowhere.url, 'GET', '/api/connect/connectors')
    expect([down.status, down.body.error_code]).toEqual([502, 'CONNECT_UNAVAILABLE'])
    await expect(startConsoleServer({ client: cluster.client, port: 0, connectUrl: 'file:///etc' })).rejects.toThrow(
      /http or https/,
    )
  })
})

describe('console: streams applications', () => {
  it('lists a running application with state and lag, and describes its tasks', async () => {
    const id = randomUUID().slice(0, 8)
    const app = `wc-${id}`
    const input = `words-${id}`
    await cluster.client.admin().createTopics([{ name: input, numPartitions: 2, replicationFactor: 1 }])
    const builder = new StreamsBuilder()
    builder
      .stream(input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
      .groupBy((_k, word) => word, { name: 'by-word', keySerde: Serdes.string(), valueSerde: Serdes.string() })
      .count({ name: 'counts' })
    const instance = await startTestStreamsApp(cluster.client, builder.build().plan(app), app)
    await until('four tasks', () => instance.metrics().tasks.length === 4)
    const producer = cluster.client.producer({ lingerMs: 1 })
    await producer.send({
      topic: input,
      records: Array.from({ length: 30 }, (_, i) => ({ key: `k${i}`, value: `w${i % 5}` })),
    })
    await producer.close()

    let view: Json
    await until('everything processed and committed', async () => {
      const r = await api('GET', `/api/streams/${app}`)
      view = r.body
      return r.status === 200 && view.totalLag === 0 && view.tasks.length === 4
    })
    expect(view.applicationId).toBe(app)
    expect(view.state).toBe('Stable')
    expect(view.tasks.map((t: Json) => t.taskId)).toEqual(['0_0', '0_1', '1_0', '1_1'])
    expect(view.instances).toHaveLength(1)
    for (const t of view.tasks) expect(t.active).toBe(view.instances[0].instanceId)

    const listed = await api('GET', `/api/streams?search=${app}`)
    expect(listed.status).toBe(200)
    expect(listed.body).toMatchObject({ total: 1, items: [{ applicationId: app, state: 'Stable', instances: 1 }] })
    expect(listed.body.items[0].totalLag).toBe(0)
    // A plain consumer group is not a streams application.
    const plain = `plain-${id}`
    await cluster.client.admin().createTopics([{ name: `${plain}-t`, numPartitions: 1, replicationFactor: 1 }])
    const consumer = cluster.client.consumer({ groupId: plain, autoOffsetReset: 'earliest', maxWaitMs: 100 })
    onTestFinished(async () => {
      await consumer.close().catch(() => {})
    })
    consumer.subscribe({ topics: [`${plain}-t`] })
    await cluster.client.producer().send({ topic: `${plain}-t`, records: [{ value: 'x' }] })
    for await (const _ of consumer.messages()) break
    await until(
      'the plain group is stable',
      async () => (await api('GET', `/api/groups/${plain}`)).body.state === 'Stable',
    )
    expect((await api('GET', `/api/streams?search=${plain}`)).body.total).toBe(0)
    expect((await api('GET', `/api/streams/${plain}`)).status).toBe(404)

    // Stopped, the application is still listed (by its internal topics), with nothing running.
    await instance.close()
    await until('listed as stopped', async () => {
      const r = await api('GET', `/api/streams?search=${app}`)
      return r.body.total === 1 && r.body.items[0].instances === 0
    })
  }, 90_000)
})
