/**
 * `pnpm bench [--full] [--only 1,3,8] [--profile] [--anatomy] [--skeleton] [--probes] [--probes-file path|latest] [--floors kafka-tcp|grpc] [--beside checkout] [--label name]`
 * from the repository root
 * (the script builds with `tsc -b bench` first). Never part of the test command.
 *
 * The cluster runs as separate processes (testkit's spawnCluster over the built dist/); each
 * producer and consumer is a separate child process (dist/workers/). Scenarios and their
 * numbering follow issue 4; BENCHMARKS.md explains them and records results. Prints a table and
 * writes bench/results/<timestamp>[-label].json.
 *
 * --profile runs scenarios 1, 3, 4 and 6 (or --only's) with every broker and worker under
 * `node --cpu-prof`, keeps the profiles in bench/results/profiles-<timestamp>/ and prints where
 * the time went (profile-summary.ts).
 *
 * --anatomy (the same as --only 6a) runs scenario 6's setup with every process tracing and prints
 * the median and p99 of every hop of a round at 200 and 10,000 records/s (anatomy/).
 *
 * --skeleton (the same as --only 6s) runs the round skeleton (probes/round/): scenario 6's five
 * processes, rates, batching and message pattern with nothing of Sluice in them, untraced and
 * traced; with 6 and 6a in the same run (`--only 6,6a,6s`) each Sluice figure and hop is printed
 * beside the skeleton's and the ratio.
 *
 * --beside <checkout> (adds 6b to --only) runs scenario 6's load on this build and on another
 * built checkout at the same moment, each on its own cluster, at 200 and 1,000 records/s
 * (scenarios/beside.ts): the A/B for a change on a machine whose speed drifts.
 *
 * --only 6j runs the kafkajs floor (probes/kafkajs-floor/): scenario 6k's kafkajs producer
 * against a Kafka stand-in that answers every Produce at once, at 200 and 10,000 records/s.
 *
 * --probes (the same as --only probes; --with-probes is another name for it) measures the floor
 * of each kind of hop on this machine before any cluster starts (probes/) and writes
 * bench/results/probes-<timestamp>.json; with --anatomy in the same run, or --probes-file naming
 * such a file (or `latest`), the anatomy prints every hop beside its floor and the ratio;
 * --floors kafka-tcp (default: Kafka's protocol on TCP, sync log writes) or grpc says which data
 * path's floors the hops meet (probes/hop-floors.ts).
 */
import { readdir } from 'node:fs/promises'
import path from 'node:path'
import { stopAll } from '@sluice/testkit'
import { runAnatomy } from './anatomy/anatomy-scenario.js'
import { runBeside } from './scenarios/beside.js'
import { runKafkajsFloor } from './probes/kafkajs-floor/kafkajs-floor.js'
import { runRoundSkeletonScenario } from './probes/round/round-scenario.js'
import { runStreams } from './scenarios/streams.js'
import { runChangeCapture } from './scenarios/change-capture.js'
import { FLOOR_PROFILES, type FloorProfile } from './probes/hop-floors.js'
import type { ProbeReport } from './probes/probe-result.js'
import { readProbeReport, writeProbeReport } from './probes/probe-report-file.js'
import { runProbes } from './probes/run-probes.js'
import { describeMachine, machineInfo } from './machine.js'
import { describeWakeups, probeWakeups } from './wakeup-probe.js'
import { CLIENT_NODE_FLAGS } from './worker-protocol.js'
import { formatProfileSummary, summarizeProfile, type ProfileSummary } from './profile-summary.js'
import { formatMarkdown, formatTable, RESULTS_DIR, writeResults, type ScenarioRow } from './results.js'
import { DEFAULT_TUNING, FULL_MODE, SHORT_MODE, type BenchContext } from './scenarios/context.js'
import { runPartitionScale } from './scenarios/partition-scale.js'
import { runReplicated } from './scenarios/replicated.js'
import { runSingleBroker } from './scenarios/single-broker.js'

interface Args {
  full: boolean
  only: Set<string> | undefined
  profile: boolean
  label: string | undefined
  probesFile: string | undefined
  floors: FloorProfile
  beside: string | undefined
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    full: false,
    only: undefined,
    profile: false,
    label: undefined,
    probesFile: undefined,
    floors: 'kafka-tcp',
    beside: undefined,
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    const value = (): string => {
      const eq = a.indexOf('=')
      if (eq >= 0) return a.slice(eq + 1)
      const v = argv[++i]
      if (v === undefined) throw new Error(`${a} needs a value`)
      return v
    }
    if (a === '--') continue
    else if (a === '--full') args.full = true
    else if (a === '--profile') args.profile = true
    else if (a === '--anatomy') args.only = new Set([...(args.only ?? []), '6a'])
    else if (a === '--skeleton') args.only = new Set([...(args.only ?? []), '6s'])
    else if (a === '--probes' || a === '--with-probes') args.only = new Set([...(args.only ?? []), 'probes'])
    else if (a.startsWith('--probes-file')) args.probesFile = value()
    else if (a.startsWith('--floors')) {
      const v = value()
      if (!(FLOOR_PROFILES as readonly string[]).includes(v))
        throw new Error(`--floors takes ${FLOOR_PROFILES.join(' or ')}, not ${v}`)
      args.floors = v as FloorProfile
    } else if (a.startsWith('--only'))
      args.only = new Set([
        ...(args.only ?? []),
        ...value()
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== ''),
      ])
    else if (a.startsWith('--label')) args.label = value()
    else if (a.startsWith('--beside')) {
      args.beside = value()
      args.only = new Set([...(args.only ?? []), '6b'])
    } else
      throw new Error(
        `unknown argument ${a}; use --full, --only 1,3, --profile, --anatomy, --skeleton, --probes, --probes-file path|latest, --floors kafka-tcp|grpc, --beside checkout, --label name`,
      )
  }
  if (args.profile && args.only === undefined) args.only = new Set(['1', '3', '4', '6'])
  return args
}

async function summarizeProfiles(
  dir: string,
  roles: Map<number, string>,
  windowsUs: ReadonlyArray<{ from: number; to: number }>,
): Promise<Array<ProfileSummary & { role: string }>> {
  const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.cpuprofile')).sort()
  const out: Array<ProfileSummary & { role: string }> = []
  for (const f of files) {
    const pid = Number(f.split('.')[3])
    const role = roles.get(pid) ?? `pid ${pid}`
    const s = summarizeProfile(path.join(dir, f), windowsUs)
    console.log(`\n${formatProfileSummary(s, role)}`)
    out.push({ ...s, role })
  }
  return out
}

/** The floor probes' report: measured now (--probes), read from a file (--probes-file), or none. */
async function floorProbes(args: Args, stamp: string): Promise<ProbeReport | undefined> {
  if (args.only?.has('probes') === true) {
    console.log('')
    const report = await runProbes({ log: (line) => console.log(line) })
    console.log(`probes: ${await writeProbeReport(stamp, report)}`)
    return report
  }
  if (args.probesFile === undefined) return undefined
  const { file, report } = await readProbeReport(args.probesFile)
  console.log(`floor probes from ${file} (${report.startedAt}, load average ${report.machine.loadAvgBefore.join(' ')})`)
  return report
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2))
  const stamp = new Date()
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z')
  const profileDir = args.profile ? path.join(RESULTS_DIR, `profiles-${stamp}`) : undefined
  const before = machineInfo()
  const started = performance.now()
  const rows: ScenarioRow[] = []
  const ctx: BenchContext = {
    mode: args.full ? FULL_MODE : SHORT_MODE,
    tuning: DEFAULT_TUNING,
    rows,
    only: args.only,
    profileDir,
    log: (line) => console.log(line),
    pidRoles: new Map(),
    windowsUs: [],
  }
  console.log(`sluice bench, ${args.full ? 'full' : 'short'} mode${args.profile ? ', profiling' : ''}`)
  console.log(`machine: ${describeMachine(before)}`)
  // Context for the figures, not a figure itself: a failed probe is reported, not fatal.
  const wakeups = await probeWakeups().catch((err: unknown) => {
    console.log(`wake-up probe failed: ${String((err as Error)?.message ?? err)}`)
    return undefined
  })
  if (wakeups !== undefined) console.log(describeWakeups(wakeups))
  console.log(
    'cluster: separate processes (metadata + brokers, testkit spawnCluster over dist/); ' +
      'load: each producer and consumer in its own child process (bench/dist/workers)',
  )
  console.log(
    `producer tuning: ${JSON.stringify(ctx.tuning)}, compression none, 100-byte values unless stated, pre-generated; ` +
      `client processes: node ${CLIENT_NODE_FLAGS.join(' ') || '(no flags)'}`,
  )
  if (before.loadAvg[0]! > 0.5) {
    console.log(
      `warning: load average ${before.loadAvg[0]} before starting: other work shares the ${before.cpus} cores and lowers the figures`,
    )
  }
  // Before any cluster starts, so the floors are the machine's alone.
  const probes = await floorProbes(args, stamp)
  await runSingleBroker(ctx)
  await runReplicated(ctx)
  await runPartitionScale(ctx)
  await runStreams(ctx)
  await runChangeCapture(ctx)
  await runAnatomy(ctx, probes, args.floors)
  await runRoundSkeletonScenario(ctx)
  await runKafkajsFloor(ctx)
  await runBeside(ctx, args.beside)
  const after = machineInfo()
  // --probes alone runs no scenario: no empty table then.
  if (rows.length > 0) console.log(`\n${formatTable(rows)}`)
  const profiles =
    profileDir === undefined ? undefined : await summarizeProfiles(profileDir, ctx.pidRoles, ctx.windowsUs)
  const file = await writeResults(args.label === undefined ? stamp : `${stamp}-${args.label}`, {
    startedAt: new Date(Date.now() - (performance.now() - started)).toISOString(),
    elapsedS: Math.round((performance.now() - started) / 100) / 10,
    mode: ctx.mode,
    tuning: ctx.tuning,
    clientNodeFlags: CLIENT_NODE_FLAGS,
    topology: 'processes: metadata + brokers via testkit spawnCluster (dist/); producer/consumer as child processes',
    machine: { before, loadAvgAfter: after.loadAvg, wakeups },
    rows,
    markdown: formatMarkdown(rows),
    profiles,
    profileDir,
    probes,
  })
  console.log(
    `\nload average after: ${after.loadAvg.join(' ')}; elapsed ${((performance.now() - started) / 1000).toFixed(0)} s`,
  )
  console.log(`results: ${file}`)
}

const interrupt = (): void => {
  console.error('interrupted: stopping the cluster')
  void stopAll().finally(() => process.exit(130))
}
process.once('SIGINT', interrupt)
process.once('SIGTERM', interrupt)

main().then(
  async () => {
    await stopAll()
    process.exit(0)
  },
  async (err: unknown) => {
    console.error(`bench failed: ${(err as Error)?.stack ?? String(err)}`)
    await stopAll().catch(() => {})
    process.exit(1)
  },
)
