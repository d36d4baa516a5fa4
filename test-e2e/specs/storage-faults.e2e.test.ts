/**
 * Storage faults with real processes (harness/fault-cluster.ts: one metadata service and brokers
 * spawned from dist/), each run checked with the replication suite's checker (harness/checker.ts:
 * no acknowledged record missing, none at another offset, no duplicates, no reordering, no
 * phantoms) and, with replication, the byte-for-byte replica comparison (read-back.ts):
 *   - disk full (ENOSPC) on one of a broker's two data dirs: a 4 MiB tmpfs the test mounts and
 *     unmounts itself (skipped, with the reason, where mounting is not permitted);
 *   - a corrupted batch, a torn segment tail, a missing offset index and a corrupt time index
 *     on a follower between restarts (RF 3, acks=all): the follower cuts the bad tail, logs
 *     exactly what it dropped, and fetches it again from the leader;
 *   - kill -9 during heavy acks=all writes to an fsync-mode topic with one replica.
 * Needs the built servers (`npx tsc -b`). SLUICE_E2E_KEEP=1 keeps the data dirs and logs.
 */
import { appendFile, mkdtemp, rm, stat, truncate } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFailed, onTestFinished } from 'vitest'
import type { SluiceError } from '@sluice/protocol'
import { waitFor } from '@sluice/testkit'
import { useFaultCluster, type FaultCluster, type FaultClusterOptions } from '../src/harness/fault-cluster.js'
import { readTopic } from '../src/harness/read-back.js'
import {
  fillDisk,
  flipByte,
  jsonLines,
  mountTmpfs,
  partitionsIn,
  segmentFiles,
  type SegmentFile,
} from '../src/harness/storage.js'
import { finishWorkload, startWorkload, type Verdict } from '../src/harness/workload.js'

interface Observed {
  cluster: FaultCluster
  output: (name: string) => Array<Record<string, unknown>>
}

async function cluster(options: FaultClusterOptions = {}): Promise<Observed> {
  const lines = new Map<string, string[]>()
  const c = await useFaultCluster(onTestFinished, {
    ...options,
    onOutputLine: (name, line) => {
      let list = lines.get(name)
      if (list === undefined) {
        list = []
        lines.set(name, list)
      }
      list.push(line)
    },
  })
  onTestFailed(() => {
    for (const ref of [...c.brokerIds, 'metadata' as const])
      console.log(`--- ${String(ref)} (last lines) ---\n${c.outputTail(ref, 15)}`)
    for (const id of c.brokerIds) {
      const warnings = jsonLines(lines.get(`broker-${id}`) ?? []).filter(
        (l) => (l.level as number) >= 40 || l.msg === 'logs loaded',
      )
      console.log(
        `--- broker-${id} warnings and loads ---\n${warnings
          .slice(-30)
          .map((l) => JSON.stringify(l))
          .join('\n')}`,
      )
    }
  })
  return { cluster: c, output: (name) => jsonLines(lines.get(name) ?? []) }
}

function expectSafe(verdict: Verdict, minAcked = 400): void {
  expect(verdict.report, verdict.text).toMatchObject({
    acknowledgedMissing: 0,
    offsetMismatch: 0,
    duplicates: 0,
    reordered: 0,
    phantom: 0,
  })
  expect(verdict.divergence, verdict.text).toEqual([])
  expect(verdict.report.acknowledged).toBeGreaterThanOrEqual(minAcked)
}

const DROPPED_TAIL = 'dropped invalid tail of segment during recovery'

/** The newest segment with at least `batches` whole batches. */
function segmentWith(segments: readonly SegmentFile[], batches: number): SegmentFile {
  const s = [...segments].reverse().find((x) => x.batches.length >= batches)
  if (s === undefined)
    throw new Error(
      `no segment with ${batches} batches among ${segments.map((x) => `${x.path} (${x.batches.length})`).join(', ')}`,
    )
  return s
}

describe('storage faults (real processes, checked by the replication checker)', () => {
  it('disk full on one of two data dirs: its partitions fail with KAFKA_STORAGE_ERROR, the other dir keeps taking writes, reads go on, writes resume once space returns', async (ctx) => {
    const mounted = await mountTmpfs(4 * 1024 * 1024, onTestFinished)
    if ('skipReason' in mounted) {
      console.warn(`SKIPPED disk-full e2e: ${mounted.skipReason}`)
      ctx.skip(mounted.skipReason)
      return
    }
    const otherRoot = await mkdtemp(path.join(os.tmpdir(), 'sluice-e2e-disk-'))
    onTestFinished(async () => {
      await rm(otherRoot, { recursive: true, force: true })
    })
    const small = path.join(mounted.dir, 'data')
    const large = path.join(otherRoot, 'data')
    const { cluster: c, output } = await cluster({
      brokers: 1,
      extraBrokerArgs: () => ['--data-dirs', `${small},${large}`],
    })
    const w = await startWorkload(c, {
      topic: 'disk-full',
      partitions: 4,
      replicationFactor: 1,
      configs: { 'segment.bytes': String(256 * 1024) },
      // Sends to the full disk wait (retrying) until space returns: room for them and for the rest.
      load: { maxOutstanding: 2000, ratePerSec: 400 },
    })
    let onSmall: number[] = []
    let onLarge: number[] = []
    await waitFor(
      async () => {
        onSmall = await partitionsIn(small, w.topic)
        onLarge = await partitionsIn(large, w.topic)
        return onSmall.length + onLarge.length === 4
      },
      { timeoutMs: 20_000, description: 'the broker to create every partition log' },
    )
    c.log(`partitions on the tmpfs: ${onSmall.join(',')}; on the other dir: ${onLarge.join(',')}`)
    expect([onSmall.length, onLarge.length]).toEqual([2, 2]) // placement: the dir with the fewest partitions
    const ackedOn = (ps: readonly number[]): number =>
      [...w.recorder.ackedById.values()].filter((a) => ps.includes(a.partition)).length
    await w.load.waitForMoreAcks(400)

    const filler = path.join(mounted.dir, 'filler')
    c.log(`tmpfs filled with ${await fillDisk(filler)} bytes`)
    const probe = c.client.producer({
      acks: 'all',
      idempotent: false,
      lingerMs: 0,
      deliveryTimeoutMs: 1500,
      requestTimeoutMs: 1000,
    })
    onTestFinished(async () => {
      await probe.close().catch(() => {})
    })
    // A page the log had already started may take a few more bytes; then every append fails.
    let failure: SluiceError | undefined
    await waitFor(
      async () => {
        failure = await probe.send({ topic: w.topic, records: [{ value: 'probe', partition: onSmall[0]! }] }).then(
          () => undefined,
          (err: SluiceError) => err,
        )
        return failure !== undefined
      },
      { timeoutMs: 30_000, description: 'a produce to the full disk to fail' },
    )
    c.log(`produce to the full disk: ${failure!.code}: ${failure!.message}`)
    expect(failure!.code).toBe('DELIVERY_TIMEOUT')
    expect((failure!.cause as SluiceError).code).toBe('KAFKA_STORAGE_ERROR')
    expect((failure!.cause as SluiceError).message).toMatch(/disk full/)

    // The other dir keeps taking writes, and everything stays readable.
    await probe.send({ topic: w.topic, records: [{ value: 'probe', partition: onLarge[0]! }] })
    const largeBefore = ackedOn(onLarge)
    await waitFor(() => ackedOn(onLarge) >= largeBefore + 100, {
      timeoutMs: 30_000,
      description: 'acks on the other dir while the tmpfs is full',
    })
    const smallWhileFull = ackedOn(onSmall)
    const readWhileFull = await readTopic(c.client, w.topic, { timeoutMs: 30_000 })
    expect(readWhileFull.filter((r) => onSmall.includes(r.partition)).length).toBeGreaterThanOrEqual(smallWhileFull)

    await rm(filler)
    c.log('space returned')
    await waitFor(() => ackedOn(onSmall) >= smallWhileFull + 100, {
      timeoutMs: 30_000,
      description: 'writes to the tmpfs partitions to resume',
    })
    await probe.send({ topic: w.topic, records: [{ value: 'probe', partition: onSmall[0]! }] })

    // Nothing half-written stays: with the load stopped, a kill -9 makes the restart scan every
    // segment of both dirs, and it must find nothing to cut.
    await w.load.stop()
    await c.kill(1)
    const verdict = await finishWorkload(c, w, 'disk-full')
    expectSafe(verdict)
    const log = output('broker-1')
    expect(log.filter((l) => l.msg === DROPPED_TAIL)).toEqual([])
    const loads = log.filter((l) => l.msg === 'logs loaded').slice(-2)
    expect(loads.map((l) => l.dataDir)).toEqual([small, large])
    for (const l of loads) expect(l).toMatchObject({ cleanShutdown: false, bytesTruncated: 0, segmentsDeleted: 0 })
    expect(loads.reduce((n, l) => n + (l.segmentsScanned as number), 0)).toBeGreaterThan(0)
  })

  it('a corrupt batch, a torn tail and bad indexes on a follower (RF 3, acks=all): it cuts the bad tail, logs what it dropped, and re-fetches from the leader', async () => {
    const { cluster: c, output } = await cluster()
    const w = await startWorkload(c, { topic: 'storage-corrupt', partitions: 3, configs: { 'segment.bytes': '4096' } })
    await w.load.waitForMoreAcks(1200)
    // A follower of partition 0 (it may lead the others: killing it moves their leadership).
    const leader0 = await c.leaderOf(w.topic, 0)
    const victim = c.brokerIds.find((id) => id !== leader0)!
    await c.kill(victim)
    const dir = (p: number): string => path.join(c.brokerDataDir(victim), `${w.topic}-${p}`)

    // Partition 0: one flipped byte in the middle batch of a segment (the batch CRC catches it).
    const segments0 = await segmentFiles(dir(0))
    const corrupt = segmentWith(segments0, 3)
    const badBatch = corrupt.batches[Math.floor(corrupt.batches.length / 2)]!
    await flipByte(corrupt.path, badBatch.position + badBatch.sizeBytes - 1)
    const laterSegments = segments0.slice(segments0.indexOf(corrupt) + 1).map((s) => s.path)
    // Partition 1: the newest segment's last batch torn 20 bytes in (a write cut short).
    const torn = segmentWith(await segmentFiles(dir(1)), 2)
    const tornBatch = torn.batches.at(-1)!
    await truncate(torn.path, tornBatch.position + 20)
    const tornLater = (await segmentFiles(dir(1))).filter((s) => s.path > torn.path).map((s) => s.path)
    // Partition 2: the first segment's offset index gone, the second's time index not whole entries.
    const segments2 = await segmentFiles(dir(2))
    expect(segments2.length).toBeGreaterThanOrEqual(2)
    const missingIndex = segments2[0]!.path.replace(/\.log$/, '.index')
    await rm(missingIndex)
    await appendFile(segments2[1]!.path.replace(/\.log$/, '.timeindex'), Buffer.alloc(5, 0xee))
    c.log(
      `corrupted broker-${victim}: ${corrupt.path}@${badBatch.position}, torn ${torn.path}@${tornBatch.position + 20}, removed ${missingIndex}`,
    )

    await c.start(victim)
    await w.load.waitForMoreAcks(300)
    const verdict = await finishWorkload(c, w, 'corrupt-follower')
    // Includes the victim's copy: same records, offsets and leader epochs as the leader's.
    expectSafe(verdict)

    const log = output(`broker-${victim}`)
    const dropped = log.filter((l) => l.msg === DROPPED_TAIL)
    expect(dropped.find((l) => l.segment === corrupt.path)).toMatchObject({
      topic: w.topic,
      partition: 0,
      position: badBatch.position,
      bytesDropped: corrupt.sizeBytes - badBatch.position,
      reason: expect.stringMatching(/^bad-crc/),
    })
    expect(dropped.find((l) => l.segment === torn.path)).toMatchObject({
      topic: w.topic,
      partition: 1,
      position: tornBatch.position,
      bytesDropped: 20,
      reason: expect.stringMatching(/torn tail/),
    })
    expect(dropped.filter((l) => l.partition === 2)).toEqual([])
    const deleted = log
      .filter((l) => l.msg === 'deleting segment after the recovered end of the log')
      .map((l) => l.segment)
    expect(deleted).toEqual(expect.arrayContaining([...laterSegments, ...tornLater]))
    expect((await stat(missingIndex)).isFile()).toBe(true)
  })

  it('kill -9 during heavy acks=all writes in fsync mode (one replica): every acknowledged record is there after restart', async () => {
    const { cluster: c, output } = await cluster({ brokers: 1 })
    const w = await startWorkload(c, {
      topic: 'fsync-kill',
      partitions: 4,
      replicationFactor: 1,
      configs: { flush: 'fsync', 'segment.bytes': String(64 * 1024) },
      load: { ratePerSec: 2000, maxOutstanding: 256 },
    })
    await w.load.waitForMoreAcks(1500)
    await c.kill(1)
    const ackedAtKill = w.load.acked()
    await c.start(1)
    await w.load.waitForMoreAcks(300, { timeoutMs: 60_000, description: 'writes after the restart' })
    const verdict = await finishWorkload(c, w, 'fsync-kill')
    expectSafe(verdict, ackedAtKill)
    const loads = output('broker-1').filter((l) => l.msg === 'logs loaded')
    expect(loads.at(-1)).toMatchObject({ cleanShutdown: false })
  })
})
