import fs from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { readCheckpointFile, writeCheckpointFile } from '../io/checkpoint-file.js'
import { LeaderEpochCache } from '../partition/leader-epoch-cache.js'
import { parsePartitionDirName, RECOVERY_POINT_CHECKPOINT_FILE } from '../segment/log-files.js'
import { LogManager } from './log-manager.js'
import { appendLeader, captureLogger, testConfig } from '../__fixtures__/log-test-env.js'
import { makeBatch, makeTempDir } from '../__fixtures__/test-batches.js'

async function useDataDir(): Promise<string> {
  const dir = await makeTempDir()
  onTestFinished(() => fs.rm(dir, { recursive: true, force: true }))
  return dir
}

const batch = (ts: bigint): Buffer => makeBatch({ records: 2, valueBytes: 50, timestamp: ts })

describe('LogManager', () => {
  it('finds logs of topics with dashes on reopen and deletes a log with its directory', async () => {
    const dataDir = await useDataDir()
    const { logger } = captureLogger()
    const first = await LogManager.open({ dataDir, logger })
    for (const p of [0, 1, 12]) await appendLeader(await first.getOrCreateLog('my-topic', p, testConfig()), [batch(1n)])
    await first.close()
    const second = await LogManager.open({ dataDir, logger })
    onTestFinished(() => second.close())
    expect(second.listLogs().sort((a, b) => a.partition - b.partition)).toEqual(
      [0, 1, 12].map((partition) => ({ topic: 'my-topic', partition })),
    )
    expect(second.getLog('my-topic', 12)!.logEndOffset).toBe(2n)
    await second.deleteLog('my-topic', 1)
    expect(second.getLog('my-topic', 1)).toBeUndefined()
    expect((await fs.readdir(dataDir)).filter((n) => n === 'my-topic-1' || n.startsWith('my-topic-1.'))).toEqual([])
    const cp = await readCheckpointFile(path.join(dataDir, RECOVERY_POINT_CHECKPOINT_FILE), 3)
    expect(cp.kind === 'ok' && cp.entries.map((e) => e[1]).sort()).toEqual(['0', '12'])
    const again = await second.getOrCreateLog('my-topic', 1, testConfig())
    expect([again.logStartOffset, again.logEndOffset]).toEqual([0n, 0n])
  })

  it('rewrites the recovery-point checkpoint when truncation lowers a recovery point', async () => {
    const dataDir = await useDataDir()
    const { logger } = captureLogger()
    const first = await LogManager.open({ dataDir, logger })
    const log = await first.getOrCreateLog('t', 0, testConfig())
    for (let i = 0; i < 10; i++) await appendLeader(log, [batch(BigInt(i))])
    await log.flush()
    expect(log.recoveryPoint).toBe(20n)
    await first.checkpointRecoveryPoints()
    await log.truncateTo(6n)
    const cp = await fs.readFile(path.join(dataDir, RECOVERY_POINT_CHECKPOINT_FILE), 'utf8')
    expect(cp).toBe('0\n1\nt 0 6\n')
    await first.close()
  })

  it('treats a corrupt recovery-point checkpoint as "recover everything"', async () => {
    const dataDir = await useDataDir()
    const { logger, lines } = captureLogger()
    const first = await LogManager.open({ dataDir, logger })
    await appendLeader(await first.getOrCreateLog('t', 0, testConfig()), [batch(1n)])
    await first.abandonForTesting()
    await fs.writeFile(path.join(dataDir, RECOVERY_POINT_CHECKPOINT_FILE), '0\n7\nt 0 1\n')
    const second = await LogManager.open({ dataDir, logger })
    onTestFinished(() => second.close())
    expect(second.recoveryStats.segmentsScanned).toBe(1)
    expect(lines.some((l) => l.msg === 'recovery-point checkpoint unreadable, recovering every segment')).toBe(true)
  })
})

describe('checkpoint files and the leader-epoch cache', () => {
  it('a checkpoint write interrupted before its rename leaves the previous checkpoint intact, and the next write replaces it', async () => {
    const dir = await useDataDir()
    const file = path.join(dir, RECOVERY_POINT_CHECKPOINT_FILE)
    await writeCheckpointFile(file, [['t', '0', '5']])
    // What a crash between writing the temp file and renaming it leaves behind.
    await fs.writeFile(`${file}.tmp`, '0\n3\ngarbage')
    expect(await readCheckpointFile(file, 3)).toEqual({ kind: 'ok', entries: [['t', '0', '5']] })
    await writeCheckpointFile(file, [['t', '0', '9']])
    expect(await readCheckpointFile(file, 3)).toEqual({ kind: 'ok', entries: [['t', '0', '9']] })
    expect(await fs.readdir(dir)).toEqual([RECOVERY_POINT_CHECKPOINT_FILE])
  })

  it('the log manager writes all three offset checkpoints, only when they changed', async () => {
    const dataDir = await useDataDir()
    const manager = await LogManager.open({ dataDir, logger: captureLogger().logger, fileDeleteDelayMs: 0 })
    onTestFinished(() => manager.close())
    const log = await manager.getOrCreateLog('t', 3, testConfig({ segmentBytes: 200 }))
    for (let i = 0; i < 6; i++) await appendLeader(log, [batch(BigInt(i))])
    await log.deleteRecordsBefore(5n, log.logEndOffset)
    await manager.checkpointAll()
    const read = async (name: string) => await readCheckpointFile(path.join(dataDir, name), 3)
    expect(await read('log-start-offset-checkpoint')).toEqual({ kind: 'ok', entries: [['t', '3', '5']] })
    expect((await read(RECOVERY_POINT_CHECKPOINT_FILE)).kind).toBe('ok')
    expect(await read('cleaner-offset-checkpoint')).toEqual({ kind: 'ok', entries: [] })
    // Unchanged content is not written again (removing the file makes a write visible).
    await fs.rm(path.join(dataDir, 'log-start-offset-checkpoint'))
    await manager.checkpointAll()
    expect((await read('log-start-offset-checkpoint')).kind).toBe('missing')
    await log.deleteRecordsBefore(7n, log.logEndOffset) // inside a batch, so inside a segment
    expect(await read('log-start-offset-checkpoint')).toEqual({ kind: 'ok', entries: [['t', '3', '7']] })
  })

  it("writes Kafka's text format atomically and rejects malformed files", async () => {
    const dir = await useDataDir()
    const file = path.join(dir, 'cp')
    await writeCheckpointFile(file, [
      ['a', '0', '5'],
      ['b-c', '3', '9'],
    ])
    expect(await fs.readFile(file, 'utf8')).toBe('0\n2\na 0 5\nb-c 3 9\n')
    expect(await readCheckpointFile(file, 3)).toEqual({
      kind: 'ok',
      entries: [
        ['a', '0', '5'],
        ['b-c', '3', '9'],
      ],
    })
    expect((await fs.readdir(dir)).sort()).toEqual(['cp'])
    await fs.writeFile(file, '1\n0\n')
    expect((await readCheckpointFile(file, 3)).kind).toBe('corrupt')
    await fs.writeFile(file, '0\n1\na 0\n')
    expect((await readCheckpointFile(file, 3)).kind).toBe('corrupt')
    expect((await readCheckpointFile(path.join(dir, 'none'), 3)).kind).toBe('missing')
  })

  it('keeps epochs increasing and drops entries a newer epoch contradicts', async () => {
    const dir = await useDataDir()
    const { logger } = captureLogger()
    const cache = await LeaderEpochCache.load(dir, logger)
    expect(cache.assign(2, 0n)).toBe(true)
    expect(cache.assign(2, 5n)).toBe(false)
    expect(cache.assign(1, 7n)).toBe(false)
    expect(cache.assign(4, 10n)).toBe(true)
    expect(cache.assign(6, 8n)).toBe(true) // starts before epoch 4: epoch 4 never really happened here
    expect(cache.all).toEqual([
      { epoch: 2, startOffset: 0n },
      { epoch: 6, startOffset: 8n },
    ])
    await cache.persist()
    const reloaded = await LeaderEpochCache.load(dir, logger)
    expect(reloaded.all).toEqual(cache.all)
    expect(reloaded.endOffsetFor(-1, 20n)).toEqual({ epoch: -1, endOffset: -1n })
    expect(reloaded.endOffsetFor(3, 20n)).toEqual({ epoch: 2, endOffset: 8n })
  })

  it('parses partition directory names at the last dash', () => {
    expect(parsePartitionDirName('a-b-c-17')).toEqual({ topic: 'a-b-c', partition: 17 })
    expect(parsePartitionDirName('t-0.1234-delete')).toBeUndefined()
    expect(parsePartitionDirName('-3')).toBeUndefined()
    expect(parsePartitionDirName('topic')).toBeUndefined()
  })
})
