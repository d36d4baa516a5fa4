// Recovery after unclean stops (crash property test) and the clean-shutdown fast path.
import fs from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import { checkBatchAt, OFF_PARTITION_LEADER_EPOCH, readBatchHeader } from '@sluice/protocol'
import { LogManager } from './log-manager.js'
import { CLEAN_SHUTDOWN_FILE, RECOVERY_POINT_CHECKPOINT_FILE } from './log-files.js'
import { appendLeader, captureLogger, splitBatches, testConfig } from './log-test-env.js'
import { makeBatch, makeTempDir } from './test-batches.js'

const config = testConfig({ segmentBytes: 700, indexIntervalBytes: 64 })

interface StoredBatch { file: string, position: number, bytes: Buffer, base: bigint, last: bigint }

/** Every batch on disk, in offset order, with its segment file and position. */
async function layout (dir: string): Promise<StoredBatch[]> {
  const logs = (await fs.readdir(dir)).filter(f => f.endsWith('.log')).sort()
  const out: StoredBatch[] = []
  for (const name of logs) {
    const file = path.join(dir, name)
    const buf = await fs.readFile(file)
    let pos = 0
    for (const bytes of splitBatches(buf)) {
      const h = readBatchHeader(bytes)!
      out.push({ file, position: pos, bytes: Buffer.from(bytes), base: h.baseOffset, last: h.baseOffset + BigInt(h.lastOffsetDelta) })
      pos += bytes.length
    }
  }
  return out
}

async function useDataDir (): Promise<string> {
  const dataDir = await makeTempDir()
  onTestFinished(() => fs.rm(dataDir, { recursive: true, force: true }))
  return dataDir
}

async function writeSome (manager: LogManager, batches: number, startTs = 0n): Promise<void> {
  const log = await manager.getOrCreateLog('t', 0, config)
  for (let i = 0; i < batches; i++) {
    await appendLeader(log, [makeBatch({ records: 1 + (i % 3), valueBytes: 30 + (i % 7) * 20, timestamp: startTs + BigInt(i), fill: i })], 1)
  }
}

describe('crash recovery', () => {
  it('recovers a valid prefix after a torn tail and/or corrupted bytes, then keeps appending', async () => {
    const dataDir = await useDataDir()
    let run = 0
    const crashArb = fc.record({
      truncateAt: fc.option(fc.integer({ min: 0, max: 1000 })),
      corrupt: fc.option(fc.record({
        segment: fc.integer({ min: 0, max: 1000 }),
        at: fc.integer({ min: 0, max: 1000 }),
        bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }),
      })),
    })
    const shapesArb = fc.array(fc.record({ records: fc.integer({ min: 1, max: 4 }), valueBytes: fc.integer({ min: 0, max: 250 }) }), { minLength: 1, maxLength: 25 })
    await fc.assert(fc.asyncProperty(shapesArb, crashArb, async (shapes, crash) => {
      const dir = path.join(dataDir, `run-${run++}`)
      const { logger, lines } = captureLogger()
      const manager = await LogManager.open({ dataDir: dir, logger, defaultConfig: config })
      const log = await manager.getOrCreateLog('t', 0, config)
      for (const [i, s] of shapes.entries()) {
        await appendLeader(log, [makeBatch({ ...s, timestamp: BigInt(i), fill: i })], 1)
      }
      await manager.abandonForTesting() // no flush, no checkpoint, no marker
      const partDir = path.join(dir, 't-0')
      const original = await layout(partDir)
      expect(original).toHaveLength(shapes.length)
      const damaged = new Set<number>()
      const files = [...new Set(original.map(b => b.file))]
      if (crash.truncateAt !== null) {
        const last = files[files.length - 1]!
        const size = (await fs.stat(last)).size
        const cut = Math.floor(crash.truncateAt * size / 1000)
        await fs.truncate(last, cut)
        original.forEach((b, i) => { if (b.file === last && b.position + b.bytes.length > cut) damaged.add(i) })
      }
      if (crash.corrupt !== null) {
        const file = files[Math.min(files.length - 1, Math.floor(crash.corrupt.segment * files.length / 1000))]!
        const buf = await fs.readFile(file)
        const at = Math.floor(crash.corrupt.at * buf.length / 1000)
        for (let k = 0; k < crash.corrupt.bytes.length && at + k < buf.length; k++) {
          const pos = at + k
          const owner = original.findIndex(b => b.file === file && b.position <= pos && pos < b.position + b.bytes.length)
          const inBatch = pos - original[owner]!.position
          // The leader epoch is outside the CRC by the format's design: nothing can detect it.
          if (inBatch >= OFF_PARTITION_LEADER_EPOCH && inBatch < OFF_PARTITION_LEADER_EPOCH + 4) continue
          if (buf[pos] !== crash.corrupt.bytes[k]) damaged.add(owner)
          buf[pos] = crash.corrupt.bytes[k]!
        }
        await fs.writeFile(file, buf)
      }
      const firstDamaged = damaged.size === 0 ? original.length : Math.min(...damaged)
      const intact = original.slice(0, firstDamaged)
      let bytesOnDisk = 0
      for (const f of files) bytesOnDisk += (await fs.stat(f)).size
      const garbage = bytesOnDisk > intact.reduce((n, b) => n + b.bytes.length, 0)

      const reopened = await LogManager.open({ dataDir: dir, logger, defaultConfig: config })
      try {
        expect(reopened.recoveryStats.cleanShutdown).toBe(false)
        const rlog = reopened.getLog('t', 0)!
        const expectedEnd = intact.length === 0 ? 0n : intact[intact.length - 1]!.last + 1n
        expect(rlog.logEndOffset).toBe(expectedEnd)
        const got = splitBatches((await rlog.read(0n, 1 << 30)).records)
        expect(got).toHaveLength(intact.length)
        got.forEach((b, i) => {
          expect(checkBatchAt(b, 0)).toBeUndefined()
          expect(b.equals(intact[i]!.bytes)).toBe(true)
        })
        // Whatever lay beyond the intact prefix was dropped, and said so.
        expect(lines.some(l => l.msg === 'dropped invalid tail of segment during recovery' || l.msg === 'deleting segment after the recovered end of the log')).toBe(garbage)
        const more = await appendLeader(rlog, [makeBatch({ records: 2, valueBytes: 10, timestamp: 99n })], 2)
        expect(more.firstOffset).toBe(expectedEnd)
        const tail = await rlog.read(expectedEnd, 1 << 20)
        expect(tail.records.equals(more.stamped)).toBe(true)
      } finally {
        await reopened.close()
      }
      const again = await LogManager.open({ dataDir: dir, logger, defaultConfig: config })
      expect(again.recoveryStats).toMatchObject({ cleanShutdown: true, segmentsScanned: 0 })
      expect(again.getLog('t', 0)!.logEndOffset).toBeGreaterThan(0n)
      await again.close()
      await fs.rm(dir, { recursive: true, force: true })
    }), {
      numRuns: Number(process.env.SLUICE_PROPERTY_RUNS ?? 60),
      // Found by CI: a corrupted byte of the first batch's baseOffset (outside the CRC) must not
      // be taken for a legitimate offset gap in a log that was never compacted.
      examples: [[[{ records: 1, valueBytes: 84 }], { truncateAt: null, corrupt: { segment: 0, at: 26, bytes: Uint8Array.from([1]) } }]],
    })
  })

  it('scans only from the segment holding the recovery point, and logs what it dropped', async () => {
    const dataDir = await useDataDir()
    const { logger, lines } = captureLogger()
    const first = await LogManager.open({ dataDir, logger, defaultConfig: config })
    await writeSome(first, 30)
    await first.close()
    const checkpoint = await fs.readFile(path.join(dataDir, RECOVERY_POINT_CHECKPOINT_FILE), 'utf8')
    const end = first.getLog('t', 0)!.logEndOffset
    expect(checkpoint).toBe(`0\n1\nt 0 ${end}\n`)
    const second = await LogManager.open({ dataDir, logger, defaultConfig: config })
    const segmentsBefore = second.getLog('t', 0)!.segmentBaseOffsets.length
    await writeSome(second, 20, 100n)
    const log = second.getLog('t', 0)!
    const newSegments = log.segmentBaseOffsets.filter(b => b >= end).length
    const endAfter = log.logEndOffset
    await second.abandonForTesting()
    // Tear the last 5 bytes off the active segment.
    const partDir = path.join(dataDir, 't-0')
    const lastLog = (await fs.readdir(partDir)).filter(f => f.endsWith('.log')).sort().pop()!
    const size = (await fs.stat(path.join(partDir, lastLog))).size
    await fs.truncate(path.join(partDir, lastLog), size - 5)
    const third = await LogManager.open({ dataDir, logger, defaultConfig: config })
    onTestFinished(() => third.close())
    // The segment holding the recovery point (the old active one) and everything after it.
    expect(third.recoveryStats.segmentsScanned).toBe(newSegments + (log.segmentBaseOffsets.includes(end) ? 0 : 1))
    expect(third.recoveryStats.segmentsScanned).toBeLessThan(segmentsBefore + newSegments)
    expect(third.getLog('t', 0)!.logEndOffset).toBeLessThan(endAfter)
    const warn = lines.find(l => l.msg === 'dropped invalid tail of segment during recovery')!
    expect(warn).toMatchObject({ segment: path.join(partDir, lastLog), bytesDropped: expect.any(Number) })
    expect(String(warn.reason)).toMatch(/torn tail/)
  })
})

describe('clean shutdown', () => {
  it('consumes the marker and loads without scanning; a missing or damaged index is rebuilt', async () => {
    const dataDir = await useDataDir()
    const { logger } = captureLogger()
    const first = await LogManager.open({ dataDir, logger, defaultConfig: config })
    await writeSome(first, 40)
    const before = (await first.getLog('t', 0)!.read(0n, 1 << 30)).records
    await first.close()
    await expect(fs.stat(path.join(dataDir, CLEAN_SHUTDOWN_FILE))).resolves.toBeDefined()

    const second = await LogManager.open({ dataDir, logger, defaultConfig: config })
    expect(second.recoveryStats).toMatchObject({ cleanShutdown: true, segmentsScanned: 0, indexesRebuilt: 0 })
    await expect(fs.stat(path.join(dataDir, CLEAN_SHUTDOWN_FILE))).rejects.toThrow()
    expect((await second.getLog('t', 0)!.read(0n, 1 << 30)).records.equals(before)).toBe(true)
    await second.close()

    const partDir = path.join(dataDir, 't-0')
    const indexes = (await fs.readdir(partDir)).filter(f => f.endsWith('.index')).sort()
    expect(indexes.length).toBeGreaterThan(3)
    const victim = path.join(partDir, indexes[1]!)
    const originalIndex = await fs.readFile(victim)
    expect(originalIndex.length).toBeGreaterThan(0)
    await fs.rm(victim)
    const timeVictim = path.join(partDir, indexes[2]!.replace('.index', '.timeindex'))
    await fs.appendFile(timeVictim, Buffer.from([1, 2, 3])) // no longer a whole number of entries

    const third = await LogManager.open({ dataDir, logger, defaultConfig: config })
    onTestFinished(() => third.close())
    expect(third.recoveryStats).toMatchObject({ cleanShutdown: true, segmentsScanned: 2, indexesRebuilt: 2 })
    expect((await fs.readFile(victim)).equals(originalIndex)).toBe(true)
    expect((await fs.stat(timeVictim)).size % 12).toBe(0)
    const log = third.getLog('t', 0)!
    expect((await log.read(0n, 1 << 30)).records.equals(before)).toBe(true)
    for (let o = 0n; o < log.logEndOffset; o += 7n) {
      const { records } = await log.read(o, 1, { minOneBatch: true })
      const h = readBatchHeader(records)!
      expect(h.baseOffset <= o && o <= h.baseOffset + BigInt(h.lastOffsetDelta)).toBe(true)
    }
  })

  it('an unclean stop scans every segment when there is no checkpoint', async () => {
    const dataDir = await useDataDir()
    const { logger } = captureLogger()
    const first = await LogManager.open({ dataDir, logger, defaultConfig: config })
    await writeSome(first, 25)
    const segments = first.getLog('t', 0)!.segmentBaseOffsets.length
    await first.abandonForTesting()
    const second = await LogManager.open({ dataDir, logger, defaultConfig: config })
    onTestFinished(() => second.close())
    expect(second.recoveryStats).toMatchObject({ cleanShutdown: false, segmentsScanned: segments, bytesTruncated: 0 })
  })
})
