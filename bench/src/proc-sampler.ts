/**
 * CPU and memory of other processes, read from Linux procfs while a scenario runs:
 *   /proc/<pid>/stat    fields 14 and 15 (utime, stime) in clock ticks, counted after the ')'
 *                       that closes the command name (which may itself contain spaces);
 *   /proc/<pid>/status  VmRSS in kB.
 * CPU % = (utime + stime) ticks over the window / (ticks per second x window seconds) x 100, so
 * 100 % is one core fully busy. A process that exits mid-window keeps its last sample.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

export interface ProcUsage {
  /** Average over the whole sampled window; 100 = one core. */
  cpuPercent: number
  rssMaxMb: number
  rssLastMb: number
  windowMs: number
}

interface Sample {
  atMs: number
  ticks: number
  rssKb: number
}

let ticksPerSecond: number | undefined

function clockTicks(): number {
  if (ticksPerSecond !== undefined) return ticksPerSecond
  try {
    ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    ticksPerSecond = 100
  }
  return ticksPerSecond
}

/** One reading of a process, or undefined when it is gone. */
export function readProc(pid: number): { ticks: number; rssKb: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // fields[0] is field 3 (state), so utime (14) and stime (15) are at 11 and 12.
    const ticks = Number(fields[11]) + Number(fields[12])
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(status)
    return { ticks, rssKb: m === null ? 0 : Number(m[1]) }
  } catch {
    return undefined
  }
}

/** Samples a set of processes every `intervalMs` until stop(). */
export class ProcSampler {
  private readonly samples = new Map<string, Sample[]>()
  private readonly timer: NodeJS.Timeout

  constructor(
    private readonly pids: ReadonlyMap<string, number>,
    intervalMs = 250,
  ) {
    clockTicks()
    this.sample()
    this.timer = setInterval(() => this.sample(), intervalMs)
  }

  private sample(): void {
    const atMs = performance.now()
    for (const [name, pid] of this.pids) {
      const r = readProc(pid)
      if (r === undefined) continue
      let list = this.samples.get(name)
      if (list === undefined) {
        list = []
        this.samples.set(name, list)
      }
      list.push({ atMs, ticks: r.ticks, rssKb: r.rssKb })
    }
  }

  /** Takes a last sample and returns the usage per process name. */
  stop(): Record<string, ProcUsage> {
    clearInterval(this.timer)
    this.sample()
    const out: Record<string, ProcUsage> = {}
    for (const [name, list] of this.samples) {
      const first = list[0]
      const last = list[list.length - 1]
      if (first === undefined || last === undefined) continue
      const windowMs = last.atMs - first.atMs
      const cpuPercent = windowMs > 0 ? ((last.ticks - first.ticks) / clockTicks() / (windowMs / 1000)) * 100 : 0
      out[name] = {
        cpuPercent: round1(cpuPercent),
        rssMaxMb: round1(Math.max(...list.map((s) => s.rssKb)) / 1024),
        rssLastMb: round1(last.rssKb / 1024),
        windowMs: Math.round(windowMs),
      }
    }
    return out
  }
}

export function round1(n: number): number {
  return Math.round(n * 10) / 10
}
