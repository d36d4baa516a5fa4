/**
 * The randomized fault run, short enough for CI (at most 3 steps in 30 s): kills, zombies, isolations
 * and restarts drawn from a seeded generator, stacked at times on a still-recovering cluster,
 * then the same verdict as the single-fault scenarios. The seed is printed; replay a failure
 * with SLUICE_E2E_SEED=<seed>, or run it for longer with `pnpm soak --seed <seed>`.
 */
import { describe, expect, it, onTestFailed, onTestFinished } from 'vitest'
import { useFaultCluster } from '../src/harness/fault-cluster.js'
import { runRandomFaults } from '../src/harness/random-run.js'
import { seedFromEnv } from '../src/harness/random.js'

describe('replication faults, randomized', () => {
  it('a seeded mix of faults loses, duplicates and reorders nothing', async () => {
    const seed = seedFromEnv()
    console.log(`random fault seed: ${seed}`)
    const c = await useFaultCluster(onTestFinished)
    onTestFailed(() => {
      console.log(`random fault run FAILED with seed ${seed} (replay: SLUICE_E2E_SEED=${seed})`)
      for (const ref of [...c.brokerIds, 'metadata' as const])
        console.log(`--- ${String(ref)} (last lines) ---\n${c.outputTail(ref, 15)}`)
    })
    const result = await runRandomFaults(c, { seed, topic: 'faults-random', maxSteps: 3, budgetMs: 30_000 })
    const { verdict } = result
    expect(result.steps.length).toBeGreaterThan(0)
    expect(result.steps.flatMap((s) => s.problems)).toEqual([])
    expect(verdict.report, verdict.text).toMatchObject({
      acknowledgedMissing: 0,
      offsetMismatch: 0,
      duplicates: 0,
      reordered: 0,
      phantom: 0,
    })
    expect(verdict.divergence, verdict.text).toEqual([])
    expect(verdict.report.acknowledged).toBeGreaterThanOrEqual(400)
  })
})
