// Model-based test: random appends (leader and follower), reads, timestamp lookups, truncations
// and close/crash + reopen, checked against an in-memory array of batches. Positions are drawn
// as integer fractions (per mille) of the current log range so they spread over it.
import fs from 'node:fs/promises'
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import { isSluiceError } from '@sluice/protocol'
import { LogManager } from '../manager/log-manager.js'
import type { LogConfig } from '../log-config.js'
import { appendLeader, captureLogger, testConfig } from '../__fixtures__/log-test-env.js'
import type { PartitionLog } from './partition-log.js'
import { makeBatch, makeTempDir } from '../__fixtures__/test-batches.js'

interface ModelBatch {
  base: bigint
  last: bigint
  bytes: Buffer
  maxTimestamp: bigint
}

const shapeArb = fc.record({
  records: fc.integer({ min: 1, max: 5 }),
  valueBytes: fc.integer({ min: 0, max: 300 }),
  timestamp: fc.bigInt({ min: 0n, max: 1000n }),
})

const opArb = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      shapes: fc.array(shapeArb, { minLength: 1, maxLength: 4 }),
      epoch: fc.integer({ min: 0, max: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('follow' as const), shape: shapeArb }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('read' as const),
      at: fc.integer({ min: 0, max: 1050 }),
      maxBytes: fc.integer({ min: 0, max: 4000 }),
      minOneBatch: fc.boolean(),
      maxOffsetAt: fc.option(fc.integer({ min: 0, max: 1000 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('time' as const), ts: fc.bigInt({ min: -5n, max: 1005n }) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.integer({ min: 0, max: 1100 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const), crash: fc.boolean() }) },
)

const configArb = fc.record({
  segmentBytes: fc.integer({ min: 200, max: 3000 }),
  indexIntervalBytes: fc.integer({ min: 0, max: 500 }),
  segmentMs: fc.constantFrom(50, 1_000_000),
  segmentIndexBytes: fc.constantFrom(24, 1 << 20),
})

function modelRead(
  model: ModelBatch[],
  offset: bigint,
  maxBytes: number,
  minOneBatch: boolean,
  maxOffset: bigint | undefined,
): Buffer {
  const out: Buffer[] = []
  let total = 0
  for (const b of model) {
    if (b.last < offset) continue
    if (maxOffset !== undefined && b.last >= maxOffset) break
    if (total + b.bytes.length > maxBytes && !(total === 0 && minOneBatch)) break
    out.push(b.bytes)
    total += b.bytes.length
  }
  return Buffer.concat(out)
}

function endOf(model: ModelBatch[], start: bigint): bigint {
  return model.length === 0 ? start : model[model.length - 1]!.last + 1n
}

describe('PartitionLog against an in-memory model', () => {
  it('matches the model under random appends, reads, lookups, truncations and reopens', async () => {
    const dataDir = await makeTempDir()
    onTestFinished(() => fs.rm(dataDir, { recursive: true, force: true }))
    let run = 0
    let syncReads = 0
    await fc.assert(
      fc.asyncProperty(configArb, fc.array(opArb, { minLength: 1, maxLength: 40 }), async (cfg, ops) => {
        const dir = `${dataDir}/run-${run++}`
        const config: LogConfig = testConfig(cfg)
        const { logger } = captureLogger()
        let manager = await LogManager.open({ dataDir: dir, logger, defaultConfig: config })
        try {
          let log: PartitionLog = await manager.getOrCreateLog('t', 0, config)
          let model: ModelBatch[] = []
          let start = 0n
          for (const op of ops) {
            const end = endOf(model, start)
            if (op.kind === 'append') {
              const batches = op.shapes.map((s, i) => makeBatch({ ...s, fill: (model.length + i) & 0xff }))
              const r = await appendLeader(log, batches, op.epoch)
              expect(r.firstOffset).toBe(end)
              let pos = 0
              for (const b of batches) {
                const bytes = r.stamped.subarray(pos, pos + b.length)
                pos += b.length
                const base = bytes.readBigInt64BE(0)
                model.push({
                  base,
                  last: base + BigInt(bytes.readInt32BE(23)),
                  bytes: Buffer.from(bytes),
                  maxTimestamp: bytes.readBigInt64BE(35),
                })
              }
            } else if (op.kind === 'follow') {
              const bytes = makeBatch({ ...op.shape, baseOffset: end, partitionLeaderEpoch: 7 })
              await log.appendReplicated(bytes)
              model.push({
                base: end,
                last: end + BigInt(op.shape.records - 1),
                bytes,
                maxTimestamp: op.shape.timestamp,
              })
            } else if (op.kind === 'read') {
              const offset = start + BigInt(Math.floor((op.at * Number(end - start)) / 1000))
              const maxOffset =
                op.maxOffsetAt === null
                  ? undefined
                  : start + BigInt(Math.floor((op.maxOffsetAt * Number(end - start + 1n)) / 1000))
              if (offset > end) {
                const err = await log.read(offset, op.maxBytes).then(
                  () => undefined,
                  (e: unknown) => e,
                )
                expect(isSluiceError(err, 'OFFSET_OUT_OF_RANGE')).toBe(true)
              } else {
                const got = await log.read(offset, op.maxBytes, { minOneBatch: op.minOneBatch, maxOffset })
                const want = modelRead(model, offset, op.maxBytes, op.minOneBatch, maxOffset)
                expect(got.records.equals(want)).toBe(true)
                // The synchronous tail read answers the same bytes whenever it answers at all.
                const tail = log.readSync(offset, op.maxBytes, { minOneBatch: op.minOneBatch, maxOffset })
                if (tail !== undefined) {
                  expect(tail.records.equals(want)).toBe(true)
                  expect(tail.firstOffset).toBe(got.firstOffset)
                  syncReads++
                }
              }
            } else if (op.kind === 'time') {
              const first = model.find((b) => b.maxTimestamp >= op.ts)
              expect(await log.offsetForTimestamp(op.ts)).toEqual(
                first === undefined ? undefined : { offset: first.base, timestamp: first.maxTimestamp },
              )
            } else if (op.kind === 'truncate') {
              const target = start + BigInt(Math.floor((op.at * Number(end - start)) / 1000))
              await log.truncateTo(target)
              if (target <= start && target < end) {
                model = []
                start = target
              } else {
                model = model.filter((b) => b.last < target)
              }
            } else {
              if (op.crash) await manager.abandonForTesting()
              else await manager.close()
              manager = await LogManager.open({ dataDir: dir, logger, defaultConfig: config })
              log = manager.getLog('t', 0)!
              expect(manager.recoveryStats.cleanShutdown).toBe(!op.crash)
            }
            expect(log.logStartOffset).toBe(start)
            expect(log.logEndOffset).toBe(endOf(model, start))
          }
          const all = await log.read(start, 1 << 30)
          expect(all.records.equals(Buffer.concat(model.map((b) => b.bytes)))).toBe(true)
        } finally {
          await manager.close().catch(() => {})
          await fs.rm(dir, { recursive: true, force: true })
        }
      }),
      { numRuns: Number(process.env.SLUICE_PROPERTY_RUNS ?? 60) },
    )
    // The comparison above must have run: tail reads are what followers and consumers make.
    expect(syncReads).toBeGreaterThan(0)
  })
})
