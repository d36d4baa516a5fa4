/** What the numbers were measured on: CPU, memory, Node, load, and the code's commit. */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'

export interface MachineInfo {
  cpus: number
  cpuModel: string
  memGiB: number
  node: string
  kernel: string
  commit: string
  loadAvg: number[]
}

export function machineInfo(): MachineInfo {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown'
  try {
    const m = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))
    if (m !== null) cpuModel = m[1]!.trim()
  } catch {
    /* not Linux */
  }
  let commit = 'unknown'
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
  } catch {
    /* not a checkout */
  }
  return {
    cpus: os.cpus().length,
    cpuModel,
    memGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: os.release(),
    commit,
    loadAvg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  }
}

export function describeMachine(m: MachineInfo): string {
  return (
    `${m.cpus} x ${m.cpuModel}, ${m.memGiB} GiB RAM, Node ${m.node}, Linux ${m.kernel}, commit ${m.commit}, ` +
    `load average ${m.loadAvg.join(' ')}`
  )
}
