/**
 * The Connect worker on a real in-process cluster, driven through its REST API as a client
 * would (HTTP): a file source connector created with one POST reads lines appended to a file
 * into a topic, a file sink writes that topic to another file, and pause/resume, config
 * updates, restarts, offsets and deletes answer as Kafka Connect's do; a bad config is a 400
 * naming the field.
 */
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startConnectWorker, type RunningConnectWorker } from '@sluice/connect'
import { readMessages, until, type RealCluster } from '../src/client/real-cluster.js'
import { quiet, startStreamsCluster } from '../src/client/streams-cluster.js'
import { untilTaskRunning, workerHttp } from '../src/connect/worker-rest.js'

let cluster: RealCluster
let worker: RunningConnectWorker
const http = workerHttp(() => worker)
let dir: string

beforeAll(async () => {
  cluster = await startStreamsCluster('sluice-connect-rest-')
  dir = await mkdtemp(join(tmpdir(), 'sluice-connect-files-'))
  worker = await startConnectWorker(
    {
      client: cluster.client,
      groupId: 'connect-test',
      logger: quiet,
      offsetStoragePartitions: 3,
      statusStoragePartitions: 2,
      sessionTimeoutMs: 2000,
      heartbeatIntervalMs: 200,
      offsetFlushIntervalMs: 200,
    },
    { port: 0 },
  )
}, 60_000)

afterAll(async () => {
  await worker?.stop()
  await cluster?.stop()
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

describe('Connect REST API', () => {
  it('answers GET / and lists the built-in plugins', async () => {
    const root = await http('GET', '/')
    expect(root.status).toBe(200)
    expect(root.body.version).toEqual(expect.any(String))
    const plugins = await http('GET', '/connector-plugins')
    expect(plugins.body.map((p: { class: string }) => p.class)).toEqual(
      expect.arrayContaining([
        'org.apache.kafka.connect.file.FileStreamSourceConnector',
        'org.apache.kafka.connect.file.FileStreamSinkConnector',
      ]),
    )
  })

  it('refuses a bad config with a 400 that names the field, and creates nothing', async () => {
    const bad = await http('POST', '/connectors', {
      name: 'bad',
      config: { 'connector.class': 'FileStreamSource', file: '/tmp/x', 'batch.size': 'many', topic: 't' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.error_code).toBe(400)
    expect(bad.body.message).toContain('batch.size')
    const override = await http('POST', '/connectors', {
      name: 'bad2',
      config: {
        'connector.class': 'FileStreamSource',
        file: '/tmp/x',
        topic: 't',
        'producer.override.sasl.jaas.config': 'x',
      },
    })
    expect(override.status).toBe(400)
    expect(override.body.message).toContain('producer.override.sasl.jaas.config')
    const validate = await http('PUT', '/connector-plugins/FileStreamSource/config/validate', {
      'connector.class': 'FileStreamSource',
      'batch.size': '0',
    })
    expect(validate.status).toBe(200)
    expect(validate.body.error_count).toBe(3)
    const list = await http('GET', '/connectors')
    expect(list.body).toEqual([])
    expect((await http('GET', '/connectors/bad')).status).toBe(404)
  })

  it('runs a file source and a file sink, with pause, resume, stop, offsets and delete', async () => {
    const input = join(dir, 'in.txt')
    const output = join(dir, 'out.txt')
    await writeFile(input, 'one\ntwo\n')
    const created = await http('POST', '/connectors', {
      name: 'lines-in',
      config: {
        'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector',
        file: input,
        topic: 'lines',
        'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
      },
    })
    expect(created.status).toBe(201)
    expect(created.body.name).toBe('lines-in')
    expect((await http('POST', '/connectors', { name: 'lines-in', config: created.body.config })).status).toBe(409)
    await untilTaskRunning(http, 'lines-in')
    expect((await http('GET', '/connectors/lines-in/status')).body.connector.state).toBe('RUNNING')
    await appendFile(input, 'three\n')
    const read = await readMessages(cluster.client, 'lines', 3)
    expect(read.map((m) => m.value?.toString())).toEqual(['one', 'two', 'three'])

    const sink = await http('PUT', '/connectors/lines-out/config', {
      'connector.class': 'FileStreamSink',
      file: output,
      topics: 'lines',
      'value.converter': 'string',
    })
    expect(sink.status).toBe(201)
    await until(
      'the sink wrote every line',
      async () => (await readFile(output, 'utf8').catch(() => '')) === 'one\ntwo\nthree\n',
    )

    // Paused: lines appended meanwhile arrive only after resume.
    expect((await http('PUT', '/connectors/lines-in/pause')).status).toBe(202)
    await until(
      'paused',
      async () => (await http('GET', '/connectors/lines-in/status')).body.tasks[0]?.state === 'PAUSED',
    )
    await appendFile(input, 'four\n')
    const resumedAt = Date.now()
    expect((await http('PUT', '/connectors/lines-in/resume')).status).toBe(202)
    await until('the line written while paused', async () => (await readFile(output, 'utf8')).endsWith('four\n'))
    // It was produced after the resume, not while paused.
    const four = (await readMessages(cluster.client, 'lines', 4))[3]!
    expect(four.value?.toString()).toBe('four')
    expect(Number(four.timestamp)).toBeGreaterThanOrEqual(resumedAt)

    // Offsets: the source's position is the byte after "four\n".
    const offsets = await http('GET', '/connectors/lines-in/offsets')
    expect(offsets.body.offsets).toEqual([{ partition: { filename: input }, offset: { position: 19 } }])
    expect((await http('DELETE', '/connectors/lines-in/offsets')).status).toBe(400)
    expect((await http('PUT', '/connectors/lines-in/stop')).status).toBe(204)
    await until(
      'stopped',
      async () => (await http('GET', '/connectors/lines-in/status')).body.connector.state === 'STOPPED',
    )
    const reset = await http('DELETE', '/connectors/lines-in/offsets')
    expect(reset.status).toBe(200)
    expect((await http('GET', '/connectors/lines-in/offsets')).body.offsets).toEqual([])

    const tasks = await http('GET', '/connectors/lines-out/tasks')
    expect(tasks.body).toEqual([
      { id: { connector: 'lines-out', task: 0 }, config: expect.objectContaining({ file: output }) },
    ])
    expect((await http('POST', '/connectors/lines-out/tasks/0/restart')).status).toBe(204)
    expect((await http('POST', '/connectors/lines-out/tasks/7/restart')).status).toBe(404)
    expect((await http('DELETE', '/connectors/lines-out')).status).toBe(204)
    expect((await http('DELETE', '/connectors/lines-in')).status).toBe(204)
    await until('both deleted', async () => (await http('GET', '/connectors')).body.length === 0)
  })

  it('skips records its converter cannot read with errors.tolerance=all, into a dead-letter topic with the error in headers', async () => {
    const output = join(dir, 'json-out.txt')
    const producer = cluster.client.producer({ acks: 'all' })
    await cluster.client.admin().createTopics([{ name: 'json-in', numPartitions: 1 }])
    await producer.send({
      topic: 'json-in',
      records: [{ value: '{"a":1}' }, { value: 'not json' }, { value: '{"a":2}' }],
    })
    await producer.close()
    const created = await http('PUT', '/connectors/json-out/config', {
      'connector.class': 'FileStreamSink',
      file: output,
      topics: 'json-in',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'json-in-dlq',
      'errors.deadletterqueue.context.headers.enable': 'true',
      transforms: 'tag',
      'transforms.tag.type': 'org.apache.kafka.connect.transforms.InsertField$Value',
      'transforms.tag.static.field': 'from',
      'transforms.tag.static.value': 'sluice',
    })
    expect(created.status).toBe(201)
    await until(
      'the good records written',
      async () => (await readFile(output, 'utf8').catch(() => '')).split('\n').length === 3,
    )
    expect(
      (await readFile(output, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { a: 1, from: 'sluice' },
      { a: 2, from: 'sluice' },
    ])
    const [dead] = await readMessages(cluster.client, 'json-in-dlq', 1)
    expect(dead!.value?.toString()).toBe('not json')
    const header = (k: string) => dead!.headers.find((h) => h.key === k)?.value?.toString()
    expect(header('__connect.errors.stage')).toBe('VALUE_CONVERTER')
    expect(header('__connect.errors.topic')).toBe('json-in')
    expect(header('__connect.errors.offset')).toBe('1')
    expect(header('__connect.errors.connector.name')).toBe('json-out')
    expect((await http('DELETE', '/connectors/json-out')).status).toBe(204)
  })

  it('pauses a connector whose config was just replaced (the new tasks start paused and say so)', async () => {
    const input = join(dir, 'repaused.txt')
    await writeFile(input, 'a\n')
    const config = {
      'connector.class': 'FileStreamSource',
      file: input,
      topic: 'repaused',
      'value.converter': 'string',
    }
    expect((await http('PUT', '/connectors/repaused/config', config)).status).toBe(201)
    await untilTaskRunning(http, 'repaused')
    await readMessages(cluster.client, 'repaused', 1)
    // A new config restarts the connector, whose new task configs restart the task; the pause
    // right behind it is applied before the new task has started.
    expect((await http('PUT', '/connectors/repaused/config', { ...config, 'batch.size': '100' })).status).toBe(200)
    expect((await http('PUT', '/connectors/repaused/pause')).status).toBe(202)
    await until(
      'the new task config committed',
      async () => (await http('GET', '/connectors/repaused/tasks')).body[0]?.config['batch.size'] === '100',
    )
    await until(
      'connector and task PAUSED',
      async () => {
        const s = (await http('GET', '/connectors/repaused/status')).body
        return s.connector.state === 'PAUSED' && s.tasks.length === 1 && s.tasks[0].state === 'PAUSED'
      },
      10_000,
    )
    // And paused in fact: a line appended now is produced only after the resume.
    await appendFile(input, 'b\n')
    const resumedAt = Date.now()
    expect((await http('PUT', '/connectors/repaused/resume')).status).toBe(202)
    const b = (await readMessages(cluster.client, 'repaused', 2))[1]!
    expect(b.value?.toString()).toBe('b')
    expect(Number(b.timestamp)).toBeGreaterThanOrEqual(resumedAt)
    expect((await http('DELETE', '/connectors/repaused')).status).toBe(204)
  })
})
