/**
 * Storage faults on a real broker: a full disk (a 2 MiB tmpfs the test mounts itself; skipped
 * with a visible reason where mounting is not permitted), files corrupted between restarts, and
 * kill -9 during fsync-mode writes (a spawned broker process from dist/, skipped when not built).
 */
import { execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import { decodeRecordBatches, encodeRecordBatch, errorId, type wire } from '@sluice/protocol'
import {
  BrokerTestClient, createTopic, eventually, onlyPartition, startTestCluster, tempDir, uniqueTopic, waitForLeaders,
} from './__fixtures__/harness.js'
import { brokerInternals } from './broker.js'
import { CLEAN_SHUTDOWN_FILE, segmentPaths } from './log/log-files.js'
import { captureLogger } from './log/log-test-env.js'

const BROKER_MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js')

/** Mounts a size-limited tmpfs; undefined (with the reason printed) when this machine does not allow it. */
async function mountTmpfs (sizeBytes: number): Promise<string | undefined> {
  const dir = await tempDir('tmpfs')
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes}`, 'tmpfs', dir], { stdio: 'pipe' })
  } catch (err) {
    console.warn(`SKIPPED disk-full test: cannot mount a tmpfs (${String((err as Error).message).split('\n')[0]})`)
    return undefined
  }
  onTestFinished(() => { execFileSync('umount', ['-l', dir], { stdio: 'pipe' }) })
  return dir
}

function produceTo (client: BrokerTestClient, topic: string, records: Buffer, acks = 1) {
  return client.produce({ acks, timeout_ms: 10_000, topics: [{ topic, partitions: [{ partition: 0, records }] }] })
}

/** Every record value of partition 0 from offset 0, with offsets. */
async function readPartition (client: BrokerTestClient, topic: string): Promise<Array<[bigint, string]>> {
  const out: Array<[bigint, string]> = []
  let offset = 0n
  for (let i = 0; i < 10_000; i++) {
    const f = onlyPartition(await client.fetch({ topics: [{ topic, partitions: [{ partition: 0, fetch_offset: offset.toString(), partition_max_bytes: 1 << 20, current_leader_epoch: -1 }] }] }))
    expect(f.error_code).toBe(0)
    const batches = decodeRecordBatches(f.records)
    if (batches.length === 0) break
    for (const b of batches) {
      for (const r of b.records) out.push([r.offset, r.value!.toString('latin1')])
      offset = b.header.baseOffset + BigInt(b.header.lastOffsetDelta) + 1n
    }
  }
  return out
}

describe('storage faults', () => {
  it('disk full: the produce fails with KAFKA_STORAGE_ERROR, nothing half-written stays, reads go on, writes resume once space returns', async () => {
    const disk = await mountTmpfs(2 * 1024 * 1024)
    if (disk === undefined) return
    const cluster = await startTestCluster(0, { logRetentionCheckIntervalMs: 100_000 })
    const dataDir = path.join(disk, 'broker')
    let broker = await cluster.startBroker(1, dataDir)
    let client = new BrokerTestClient(broker.endpoint)
    const topic = uniqueTopic()
    await createTopic(cluster, { name: topic, num_partitions: 1, replication_factor: 1, configs: { 'segment.bytes': String(256 * 1024) } })
    await waitForLeaders(client, topic, 1)
    const filler = path.join(disk, 'filler')
    await fs.writeFile(filler, randomBytes(512 * 1024))
    const acked: Array<[bigint, string]> = []
    let failure: wire.ProducePartitionResponse__Output | undefined
    for (let i = 0; i < 200 && failure === undefined; i++) {
      const value = `${i}:` + randomBytes(24 * 1024).toString('latin1')
      const r = onlyPartition(await produceTo(client, topic, encodeRecordBatch([{ value: Buffer.from(value, 'latin1') }])))
      if (r.error_code === 0) acked.push([BigInt(r.base_offset), value])
      else failure = r
    }
    expect(failure?.error_code).toBe(errorId('KAFKA_STORAGE_ERROR'))
    expect(failure?.error_message).toMatch(/disk full/)
    expect(acked.length).toBeGreaterThan(10)
    // Reads are served, and the log ends exactly after the last acknowledged batch.
    expect(await readPartition(client, topic)).toEqual(acked)
    const log = brokerInternals(broker)!.logManager.getLog(topic, 0)!
    expect(log.logEndOffset).toBe(BigInt(acked.length))
    expect(log.isFailed).toBe(false)
    expect(onlyPartition(await produceTo(client, topic, encodeRecordBatch([{ value: randomBytes(64 * 1024) }]))).error_code)
      .toBe(errorId('KAFKA_STORAGE_ERROR'))
    await fs.rm(filler)
    const resumed = onlyPartition(await produceTo(client, topic, encodeRecordBatch([{ value: Buffer.from('after', 'latin1') }])))
    expect([resumed.error_code, resumed.base_offset]).toEqual([0, String(acked.length)])
    acked.push([BigInt(acked.length), 'after'])
    // A restart finds exactly the acknowledged batches, with nothing to cut.
    await broker.stop()
    broker = await cluster.startBroker(1, dataDir)
    client = new BrokerTestClient(broker.endpoint)
    await waitForLeaders(client, topic, 1)
    expect(brokerInternals(broker)!.logManager.recoveryStats.bytesTruncated).toBe(0)
    expect(await eventually(async () => {
      const got = await readPartition(client, topic)
      return got.length === acked.length ? got : undefined
    }, 'the log after restart')).toEqual(acked)
    await broker.stop()
  })

  it('corrupt files found at start: the index is rebuilt, the bad tail cut, and the log says what was dropped', async () => {
    const captured = captureLogger('warn')
    const dataDir = path.join(await tempDir('corrupt'), 'broker')
    const cluster = await startTestCluster(0, { logger: captured.logger })
    let broker = await cluster.startBroker(1, dataDir)
    let client = new BrokerTestClient(broker.endpoint)
    const topic = uniqueTopic()
    await createTopic(cluster, { name: topic, num_partitions: 1, replication_factor: 1, configs: { 'segment.bytes': '1024' } })
    await waitForLeaders(client, topic, 1)
    for (let i = 0; i < 30; i++) expect(onlyPartition(await produceTo(client, topic, encodeRecordBatch([{ value: Buffer.from(`v${i}`.padEnd(60, '.')) }]))).error_code).toBe(0)
    const bases = brokerInternals(broker)!.logManager.getLog(topic, 0)!.segmentBaseOffsets
    await broker.stop()
    // An unclean stop, a missing index of the first segment, and a flipped byte in the last batch.
    const dir = path.join(dataDir, `${topic}-0`)
    await fs.rm(path.join(dataDir, CLEAN_SHUTDOWN_FILE))
    await fs.rm(segmentPaths(dir, 0n).index)
    const last = segmentPaths(dir, bases.at(-1)!).log
    const bytes = await fs.readFile(last)
    bytes[bytes.length - 5] = bytes[bytes.length - 5]! ^ 0xff
    await fs.writeFile(last, bytes)
    broker = await cluster.startBroker(1, dataDir)
    client = new BrokerTestClient(broker.endpoint)
    await waitForLeaders(client, topic, 1)
    const got = await readPartition(client, topic)
    expect(got.map(([o]) => o)).toEqual(Array.from({ length: 29 }, (_, i) => BigInt(i)))
    expect(got[28]![1]).toMatch(/^v28\./)
    const dropped = captured.lines.find(l => l.msg === 'dropped invalid tail of segment during recovery')
    expect(dropped).toMatchObject({ segment: last, reason: expect.stringMatching(/bad-crc/), nextOffset: '29' })
    expect(dropped!.bytesDropped).toBeGreaterThan(0)
    expect(existsSync(segmentPaths(dir, 0n).index)).toBe(true)
    // Writes continue where the valid log ends.
    expect(onlyPartition(await produceTo(client, topic, encodeRecordBatch([{ value: Buffer.from('next') }]))).base_offset).toBe('29')
    await broker.stop()
  })

  it.skipIf(!existsSync(BROKER_MAIN))('kill -9 during fsync-mode writes: every acknowledged record is there after restart', async () => {
    const dataDir = path.join(await tempDir('kill9'), 'broker')
    const cluster = await startTestCluster(0)
    const child = spawn(process.execPath, [BROKER_MAIN, '--broker-id', '1', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir,
      '--metadata-endpoints', cluster.metadataEndpoint, '--heartbeat-interval-ms', '500', '--session-timeout-ms', '6000', '--log-level', 'warn'],
    { stdio: ['ignore', 'pipe', 'inherit'] })
    const exited = new Promise<void>(resolve => child.once('exit', () => resolve()))
    onTestFinished(async () => { child.kill('SIGKILL'); await exited })
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the spawned broker did not print LISTENING')), 20_000)
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const m = /^LISTENING (\d+)$/.exec(line)
        if (m !== null) { clearTimeout(timer); resolve(Number(m[1])) }
      })
    })
    const client = new BrokerTestClient(`127.0.0.1:${port}`)
    const topic = uniqueTopic()
    await createTopic(cluster, { name: topic, num_partitions: 1, replication_factor: 1, configs: { flush: 'fsync', 'segment.bytes': '65536' } })
    await waitForLeaders(client, topic, 1)
    const acked = new Map<bigint, string>()
    let killed = false
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; i < 10_000 && !killed; i++) {
        const value = `w${w}-${i}`
        const r = await Promise.race([produceTo(client, topic, encodeRecordBatch([{ value: Buffer.from(value) }])), exited.then(() => undefined)])
        if (r === undefined) return
        const p = onlyPartition(r)
        if (p.error_code === 0 && !killed) acked.set(BigInt(p.base_offset), value)
      }
    }
    const writers = Array.from({ length: 8 }, (_, w) => writer(w))
    await eventually(async () => acked.size >= 300 ? true : undefined, '300 acknowledged writes', 20_000)
    child.kill('SIGKILL')
    killed = true
    await exited
    await Promise.all(writers)
    client.close()
    const restarted = await cluster.startBroker(1, dataDir)
    const after = new BrokerTestClient(restarted.endpoint)
    await waitForLeaders(after, topic, 1)
    const stored = new Map(await eventually(async () => {
      const got = await readPartition(after, topic)
      return got.length >= acked.size ? got : undefined
    }, 'the acknowledged records after restart'))
    for (const [offset, value] of acked) expect(stored.get(offset)).toBe(value)
    await restarted.stop()
  })
})
