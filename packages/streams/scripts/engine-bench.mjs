// Indicative measurement behind the persistent engine choice (docs/decisions.md, "Streams
// state: the persistent engine"): writes N 100-byte values in batches, then reads each back,
// for lmdb (raw, and through the store's LmdbBytesEngine) and classic-level (LevelDB).
//
//   npx tsc -b packages/streams
//   node packages/streams/scripts/engine-bench.mjs [count] [classic-level dir]
//
// classic-level is not a dependency of the package: install it anywhere
// (`npm install --ignore-scripts classic-level` in a scratch directory) and pass the
// directory holding its node_modules; without it only lmdb is measured.
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { open } from 'lmdb'
import { LmdbBytesEngine } from '../dist/internal.js'

const count = Number(process.argv[2] ?? 1_000_000)
const classicDir = process.argv[3]
const batch = Number(process.env.BATCH ?? 10_000)
const value = Buffer.alloc(100, 7)
const key = (i) => Buffer.from(`key-${String(i).padStart(10, '0')}`)
// Keys in a shuffled order, so neither engine is handed an append-only load.
const order = Array.from({ length: count }, (_, i) => i)
for (let i = order.length - 1; i > 0; i--) {
  const j = Math.floor(Math.random() * (i + 1))
  ;[order[i], order[j]] = [order[j], order[i]]
}

function report(name, phase, started) {
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  console.log(
    `${name.padEnd(22)} ${phase.padEnd(6)} ${Math.round(count / seconds).toLocaleString('en-US')} ops/s (${seconds.toFixed(2)} s)`,
  )
}

function scratch() {
  return mkdtempSync(join(tmpdir(), 'engine-bench-'))
}

async function lmdbRaw() {
  const dir = scratch()
  const db = open({ path: dir, keyEncoding: 'binary', encoding: 'binary', overlappingSync: false })
  let started = process.hrtime.bigint()
  for (let from = 0; from < count; from += batch) {
    db.transactionSync(() => {
      for (let i = from; i < Math.min(count, from + batch); i++) db.putSync(key(order[i]), value)
    })
  }
  report('lmdb (transactionSync)', 'write', started)
  started = process.hrtime.bigint()
  let found = 0
  for (const i of order) if (db.getBinary(key(i)) !== undefined) found++
  report('lmdb (transactionSync)', 'read', started)
  if (found !== count) throw new Error(`lmdb read ${found} of ${count}`)
  await db.close()
  rmSync(dir, { recursive: true, force: true })
}

function lmdbEngine() {
  const dir = scratch()
  const engine = new LmdbBytesEngine()
  engine.open(dir)
  let started = process.hrtime.bigint()
  for (let from = 0; from < count; from += batch) {
    for (let i = from; i < Math.min(count, from + batch); i++) engine.put(key(order[i]), value)
    engine.flush()
  }
  report('LmdbBytesEngine', 'write', started)
  started = process.hrtime.bigint()
  let found = 0
  for (const i of order) if (engine.get(key(i)) !== undefined) found++
  report('LmdbBytesEngine', 'read', started)
  if (found !== count) throw new Error(`engine read ${found} of ${count}`)
  engine.close()
  rmSync(dir, { recursive: true, force: true })
}

async function classicLevel() {
  const { ClassicLevel } = createRequire(join(classicDir, 'package.json'))('classic-level')
  const dir = scratch()
  const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  await db.open()
  let started = process.hrtime.bigint()
  for (let from = 0; from < count; from += batch) {
    const ops = []
    for (let i = from; i < Math.min(count, from + batch); i++) ops.push({ type: 'put', key: key(order[i]), value })
    // sync: true is LevelDB's durable write, the equivalent of lmdb's synced commit.
    await db.batch(ops, { sync: true })
  }
  report('classic-level (batch)', 'write', started)
  started = process.hrtime.bigint()
  let found = 0
  // Reads one at a time, as a processor's get would be if it could await (it cannot: see the decision).
  for (const i of order) if ((await db.get(key(i))) !== undefined) found++
  report('classic-level (get)', 'read', started)
  if (found !== count) throw new Error(`classic-level read ${found} of ${count}`)
  await db.close()
  rmSync(dir, { recursive: true, force: true })
}

if (process.env.ONLY_ENGINE === undefined) await lmdbRaw()
lmdbEngine()
if (classicDir !== undefined) await classicLevel()
