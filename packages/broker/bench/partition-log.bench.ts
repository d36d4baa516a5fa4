/**
 * Log storage hot paths on a real temp dir (issue 4):
 *  - segment append: PartitionLog.appendAsLeader of one 1,000 x 100 B batch (~108 KB), the
 *    unit a produce request carries per partition (page cache, flush=replication), and of one
 *    10 x 100 B batch (~1.2 KB), what a request carries at 10,000 records/s (scenario 6);
 *  - fetch read: PartitionLog.read of 1 MiB from a random offset of a ~100 MB log, and a tail
 *    read (a follower or caught-up consumer) of one of the last 8 small batches of a log;
 *  - index lookup: the in-memory sparse offset index of the active segment (binary search).
 * The log directory is removed when the benchmark file ends.
 */
import { rm } from 'node:fs/promises'
import { afterAll, bench, describe } from 'vitest'
import { pino } from 'pino'
import { LogManager } from '../src/log/index.js'
import { OffsetIndexEntries } from '../src/log/segment/offset-index.js'
import { makeBatch, makeTempDir } from '../src/log/__fixtures__/test-batches.js'
import { appendStamped, testConfig } from '../src/log/__fixtures__/log-test-env.js'

const dir = await makeTempDir('sluice-bench-log-')
const manager = await LogManager.open({ dataDir: dir, logger: pino({ level: 'silent' }) })
const appendLog = await manager.getOrCreateLog('append', 0, testConfig())
const readLog = await manager.getOrCreateLog('read', 0, testConfig())
const template = makeBatch({ records: 1000, valueBytes: 100, timestamp: BigInt(Date.now()) })

// ~100 MB to read from.
for (let i = 0; i < 1000; i++) {
  const buf = Buffer.from(template)
  await appendStamped(readLog, buf)
}
const readEnd = readLog.logEndOffset

const smallLog = await manager.getOrCreateLog('small', 0, testConfig())
const tailLog = await manager.getOrCreateLog('tail', 0, testConfig())
const smallTemplate = makeBatch({ records: 10, valueBytes: 100, timestamp: BigInt(Date.now()) })
const tailBases: bigint[] = []
for (let i = 0; i < 2000; i++) {
  const buf = Buffer.from(smallTemplate)
  tailBases.push((await appendStamped(tailLog, buf)).firstOffset)
}
const lastBases = tailBases.slice(-8)

const index = new OffsetIndexEntries()
for (let i = 0; i < 100_000; i++) index.append(i * 1000 + 999, i * 4096)

afterAll(async () => {
  await manager.close()
  await rm(dir, { recursive: true, force: true })
})

describe('segment append', () => {
  bench('appendAsLeader 1,000 x 100 B (108 KB)', async () => {
    const buf = Buffer.from(template) // appends stamp offsets in place
    await appendStamped(appendLog, buf)
  })
  bench('appendAsLeader 10 x 100 B (1.2 KB)', async () => {
    const buf = Buffer.from(smallTemplate)
    await appendStamped(smallLog, buf)
  })
})

describe('fetch read', () => {
  bench('read 1 MiB at a random offset (~100 MB log)', async () => {
    const offset = BigInt(Math.floor(Math.random() * Number(readEnd - 1n)))
    await readLog.read(offset, 1024 * 1024, { minOneBatch: true })
  })
  let t = 0
  bench('tail read: from one of the last 8 of 2,000 x 1.2 KB batches', async () => {
    t = (t + 1) % lastBases.length
    await tailLog.read(lastBases[t]!, 1024 * 1024, { minOneBatch: true })
  })
})

describe('index lookup', () => {
  let k = 0
  bench('OffsetIndexEntries.lookup in 100,000 entries', () => {
    k = (k + 7919) % 100_000_000
    index.lookup(k)
  })
})
