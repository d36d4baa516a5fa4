/**
 * The randomized run: a fresh workload, then random fault steps (faults.ts) drawn from a seeded
 * generator until a step count or a time budget is used up, then the verdict. The seed is
 * printed first, so any run can be replayed (`SLUICE_E2E_SEED=N` for the CI test,
 * `pnpm soak --seed N` for the soak).
 */
import type { FaultCluster } from './fault-cluster.js'
import { randomStep, type StepResult } from './faults.js'
import { createRng } from './random.js'
import { finishWorkload, startWorkload, type Verdict } from './workload.js'

export interface RandomRunOptions {
  readonly seed: number
  readonly topic: string
  /** Stop after this many steps. Default 3. */
  readonly maxSteps?: number
  /** Start no new step after this long. Default 40 s. */
  readonly budgetMs?: number
  readonly partitions?: number
}

export interface RandomRunResult {
  readonly seed: number
  readonly steps: StepResult[]
  readonly verdict: Verdict
  readonly durationMs: number
}

export async function runRandomFaults(cluster: FaultCluster, options: RandomRunOptions): Promise<RandomRunResult> {
  const started = Date.now()
  const rng = createRng(options.seed)
  const maxSteps = options.maxSteps ?? 3
  const budgetMs = options.budgetMs ?? 40_000
  cluster.log(
    `random run: seed ${options.seed} (replay: SLUICE_E2E_SEED=${options.seed} or pnpm soak --seed ${options.seed})`,
  )
  const w = await startWorkload(cluster, {
    topic: options.topic,
    partitions: options.partitions ?? 3 + rng.int(0, 3),
    // The time bound is a backstop: the steps decide when the load stops.
    load: { maxDurationMs: budgetMs + 120_000, maxRecords: 1_000_000 },
  })
  const steps: StepResult[] = []
  while (steps.length < maxSteps && Date.now() - started < budgetMs) {
    const step = await randomStep(cluster, w, rng)
    cluster.log(
      `step ${steps.length + 1}: ${step.what}${step.problems.length > 0 ? ` PROBLEMS: ${step.problems.join('; ')}` : ''}`,
    )
    steps.push(step)
  }
  const verdict = await finishWorkload(cluster, w, `random seed=${options.seed}`)
  return { seed: options.seed, steps, verdict, durationMs: Date.now() - started }
}
