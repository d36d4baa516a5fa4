/**
 * The replication soak: `pnpm soak [--seed N] [--minutes M]` (default 5 minutes, a clock-based
 * seed). Runs the randomized fault run (harness/random-run.ts) round after round, each round on
 * a fresh cluster with seed N + round and up to 150 s of faults, until the time is up; then
 * prints a summary table and exits 1 if any round lost, duplicated or reordered a record, let
 * replicas diverge, or could not complete.
 *
 * The root script compiles test-e2e with its own tsconfig into test-e2e/dist (ignored by git)
 * and runs this file with plain node against the built packages: no TypeScript loader needed.
 * Build the packages first (`npx tsc -b`).
 */
import { startFaultCluster, type FaultCluster } from './harness/fault-cluster.js'
import { parseSoakArgs, type SoakArgs } from './harness/random.js'
import { runRandomFaults } from './harness/random-run.js'

interface Row {
  round: number
  seed: number
  steps: number
  seconds: number
  acked: number
  failed: number
  missing: number
  mismatch: number
  duplicates: number
  reordered: number
  unackedReadable: number
  diverged: number
  result: string
}

const ROUND_BUDGET_MS = 150_000

function table(rows: readonly Row[]): string {
  const head = [
    'round',
    'seed',
    'steps',
    'secs',
    'acked',
    'failed',
    'missing',
    'offMismatch',
    'dups',
    'reordered',
    'unackedRead',
    'diverged',
    'result',
  ]
  const body = rows.map((r) =>
    [
      r.round,
      r.seed,
      r.steps,
      r.seconds,
      r.acked,
      r.failed,
      r.missing,
      r.mismatch,
      r.duplicates,
      r.reordered,
      r.unackedReadable,
      r.diverged,
      r.result,
    ].map(String),
  )
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)))
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  return [line(head), ...body.map(line)].join('\n')
}

async function main(): Promise<number> {
  let args: SoakArgs
  try {
    args = parseSoakArgs(process.argv.slice(2))
  } catch (err) {
    console.error(`soak: ${(err as Error).message}`)
    return 2
  }
  const deadline = Date.now() + args.minutes * 60_000
  console.log(`soak: seed ${args.seed}, ${args.minutes} minute(s)`)
  const rows: Row[] = []
  let current: FaultCluster | undefined
  let interrupted = false
  process.once('SIGINT', () => {
    interrupted = true
    console.log('soak: interrupted, finishing the current round')
  })
  for (let round = 1; !interrupted && Date.now() < deadline; round++) {
    const seed = (args.seed + round - 1) >>> 0
    const started = Date.now()
    const row: Row = {
      round,
      seed,
      steps: 0,
      seconds: 0,
      acked: 0,
      failed: 0,
      missing: 0,
      mismatch: 0,
      duplicates: 0,
      reordered: 0,
      unackedReadable: 0,
      diverged: 0,
      result: 'ERROR',
    }
    try {
      current = await startFaultCluster({ onEvent: (line) => console.log(`[round ${round}] ${line}`) })
      const budgetMs = Math.max(10_000, Math.min(ROUND_BUDGET_MS, deadline - Date.now()))
      const result = await runRandomFaults(current, { seed, topic: `soak-${round}`, maxSteps: 1_000, budgetMs })
      const r = result.verdict.report
      Object.assign(row, {
        steps: result.steps.length,
        acked: r.acknowledged,
        failed: r.failed,
        missing: r.acknowledgedMissing,
        mismatch: r.offsetMismatch,
        duplicates: r.duplicates,
        reordered: r.reordered,
        unackedReadable: r.unacknowledgedReadable,
        diverged: result.verdict.divergence.length,
      })
      const stepProblems = result.steps.flatMap((s) => s.problems)
      row.result = r.ok && result.verdict.divergence.length === 0 && stepProblems.length === 0 ? 'OK' : 'FAILED'
      if (stepProblems.length > 0) console.log(`[round ${round}] step problems: ${stepProblems.join('; ')}`)
    } catch (err) {
      row.result = `ERROR: ${(err as Error).message.split('\n')[0]!.slice(0, 120)}`
      console.log(`[round ${round}] ${(err as Error).stack ?? String(err)}`)
    } finally {
      await current?.close().catch((err: unknown) => {
        console.log(`[round ${round}] cleanup failed: ${String(err)}`)
      })
      current = undefined
    }
    row.seconds = Math.round((Date.now() - started) / 1000)
    rows.push(row)
    console.log(`[round ${round}] ${row.result}`)
  }
  console.log(`\nsoak summary (seed ${args.seed}; replay a round with pnpm soak --seed <its seed>)\n${table(rows)}`)
  const bad = rows.filter((r) => r.result !== 'OK').length
  console.log(bad === 0 ? `soak: all ${rows.length} round(s) OK` : `soak: ${bad} of ${rows.length} round(s) not OK`)
  return bad === 0 ? 0 : 1
}

// Exit explicitly: a client channel left half-closed by a fault must not keep the soak alive.
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err)
    process.exit(1)
  },
)
