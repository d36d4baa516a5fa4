/**
 * Scenario 6s, the round skeleton (`--skeleton` or `--only 6s`; round-probe.ts): scenario 6's
 * round with nothing of Sluice in it, at 200 and at 10,000 records/s, untraced (its end-to-end
 * latency and every process's CPU, beside scenario 6's) and traced (its hop table, beside the
 * anatomy's). Run with `--only 6,6s,6a` to get both sides from one run, alternating nothing:
 * each side's rows are what the run measured.
 */
import type { ScenarioRow } from '../../results.js'
import { logRow, type BenchContext } from '../../scenarios/context.js'
import type { HopStats } from '../../anatomy/anatomy-join.js'
import { formatHopTable } from '../../anatomy/anatomy-join.js'
import type { LatencySummary } from '../../histogram.js'
import { compareEndToEnd, compareHops, formatHopComparison } from './round-compare.js'
import { runRoundSkeleton } from './round-probe.js'

const RATES: ReadonlyArray<{ rate: number; label: string; scenario6: string }> = [
  { rate: 200, label: '200', scenario6: '6/200' },
  { rate: 10_000, label: '10k', scenario6: '6' },
]

export async function runRoundSkeletonScenario(ctx: BenchContext): Promise<void> {
  if (ctx.only?.has('6s') !== true) return
  ctx.log(
    'scenario 6s: the round skeleton (scenario 6 with nothing of Sluice: framed TCP, writeSync, the replication rules)',
  )
  for (const { rate, label, scenario6 } of RATES) {
    const plain = await runRoundSkeleton({
      ratePerSec: rate,
      warmupMs: ctx.mode.latencyWarmupMs,
      durationMs: ctx.mode.latencyDurationMs,
      recordBytes: 100,
      traced: false,
    })
    const row: ScenarioRow = {
      id: `6s/${label}`,
      title: `round skeleton @${rate.toLocaleString('en-US')}/s`,
      setup: '3 skeleton brokers, 6p, every replica in the ISR, acks=all rules',
      recordsPerSec: rate,
      latency: plain.endToEnd,
      latencyKind: 'intended send time to consumer arrival (the skeleton)',
      usage: Object.fromEntries(
        Object.entries(plain.usage).map(([k, u]) => [
          k,
          { cpuPercent: u.cpuPercent, rssMaxMb: u.rssMb, rssLastMb: u.rssMb, windowMs: u.windowMs },
        ]),
      ),
      extra: { ack: plain.ack, records: plain.records },
      notes: [`producer ack p50 ${plain.ack.p50Ms} / p99 ${plain.ack.p99Ms} ms`],
    }
    const sluice = ctx.rows.find((r) => r.id === scenario6)?.latency
    if (sluice !== undefined) row.notes.push(endToEndNote(sluice, plain.endToEnd))
    ctx.rows.push(row)
    logRow(ctx, row)

    const traced = await runRoundSkeleton({
      ratePerSec: rate,
      warmupMs: ctx.mode.latencyWarmupMs,
      durationMs: ctx.mode.latencyDurationMs,
      recordBytes: 100,
      traced: true,
    })
    const hops = traced.hops ?? []
    ctx.log(
      `\n${formatHopTable(`round skeleton @${rate.toLocaleString('en-US')} rec/s, traced: ${traced.batches} batches`, hops)}`,
    )
    row.extra = { ...row.extra, traced: { hops, batches: traced.batches, endToEnd: traced.endToEnd } }
    const anatomy = (ctx.rows.find((r) => r.id === `6a/${label}`)?.extra?.anatomy as { hops?: HopStats[] } | undefined)
      ?.hops
    if (anatomy !== undefined) {
      const cmp = compareHops(anatomy, hops)
      row.extra = { ...row.extra, versusAnatomy: cmp }
      ctx.log(
        `\n${formatHopComparison(`anatomy @${rate.toLocaleString('en-US')} rec/s beside the round skeleton's same hop (x = Sluice / skeleton)`, cmp)}`,
      )
    }
  }
}

function endToEndNote(sluice: LatencySummary, skeleton: LatencySummary): string {
  const c = compareEndToEnd(sluice, skeleton)
  return (
    `scenario 6 in this run p50/p99/p99.9 ${sluice.p50Ms}/${sluice.p99Ms}/${sluice.p999Ms} ms = ` +
    `${c.ratioP50 ?? '-'}x / ${c.ratioP99 ?? '-'}x / ${c.ratioP999 ?? '-'}x the skeleton's`
  )
}
