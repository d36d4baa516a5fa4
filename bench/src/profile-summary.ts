/**
 * Summarises a V8 .cpuprofile (written by `node --cpu-prof`): self time per function and per
 * area (gRPC, HTTP/2, protobuf, record codec, CRC, log storage, fs, sockets, GC, ...).
 *
 * Format: { nodes: [{ id, callFrame: { functionName, url, lineNumber }, hitCount, children }],
 * startTime, endTime, samples, timeDeltas } with times in microseconds. A node's self time is
 * its share of the samples times the profile's duration. Native functions (empty url, e.g. a
 * binding's writeBuffer) are charged to the area of their nearest JavaScript caller, so "fs" and
 * "sockets" include the syscalls made on their behalf.
 *
 * CLI: node dist/profile-summary.js <file.cpuprofile> [...] (whole profile, no windows)
 */
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  hitCount?: number
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples?: number[]
  timeDeltas?: number[]
}

export interface ProfileSummary {
  file: string
  /** Time covered by the counted samples (the windows, when given). */
  durationMs: number
  idlePercent: number
  /** Area -> % of busy (non-idle) time. */
  areas: Array<{ area: string; percent: number }>
  /** Top functions by self time, % of busy time. */
  top: Array<{ fn: string; where: string; area: string; percent: number }>
}

const AREAS: ReadonlyArray<[RegExp, string]> = [
  [/@grpc\/grpc-js/, 'gRPC (grpc-js)'],
  [/node:internal\/http2|node:http2/, 'HTTP/2 (node)'],
  [/protobufjs|@grpc\/proto-loader|@protobufjs/, 'protobuf encode/decode'],
  [/crc32/, 'CRC-32C'],
  [/record-batch\/(record-encoder|varint|record-decoder|record-walker)/, 'record encode/decode'],
  [/record-batch\/(batch-header|compression)/, 'batch header checks'],
  [/broker\/(dist|src)\/log\//, 'broker log storage (JS)'],
  [/broker\/(dist|src)\//, 'broker other (JS)'],
  [/client\/(dist|src)\/producer\//, 'client producer (JS)'],
  [/client\/(dist|src)\/consumer\//, 'client consumer (JS)'],
  [/client\/(dist|src)\//, 'client other (JS)'],
  [/node:internal\/fs|node:fs/, 'fs'],
  [/node:net|stream_base_commons|node:internal\/streams|node:stream/, 'sockets/streams'],
  [/node:internal\/timers|task_queues|node:internal\/process\/|async_hooks/, 'event loop/timers/promises'],
  [/node:buffer|node:internal\/buffer/, 'Buffer ops'],
  [/pino|sonic-boom|thread-stream/, 'logging'],
  [/bench\/dist/, 'bench load generator'],
]

function areaOf(url: string): string {
  for (const [re, name] of AREAS) if (re.test(url)) return name
  return url.startsWith('node:') ? 'node other' : url === '' ? 'native/unattributed' : 'other JS'
}

/**
 * `windowsUs`: count only samples taken inside these intervals of the monotonic clock (µs; V8's
 * profile timestamps and process.hrtime share it), so start-up and idle gaps between scenarios
 * do not dilute the figures. Without windows, every sample counts.
 */
export function summarizeProfile(
  file: string,
  windowsUs: ReadonlyArray<{ from: number; to: number }> = [],
  topN = 25,
): ProfileSummary {
  const prof = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const parent = new Map<number, ProfileNode>()
  const byId = new Map<number, ProfileNode>()
  for (const n of prof.nodes) {
    byId.set(n.id, n)
    for (const c of n.children ?? []) parent.set(c, n)
  }
  const hits = new Map<number, number>()
  let durationMs = (prof.endTime - prof.startTime) / 1000
  if (prof.samples !== undefined && prof.samples.length > 0) {
    const deltas = prof.timeDeltas ?? []
    const inWindow = (t: number): boolean => windowsUs.length === 0 || windowsUs.some((w) => t >= w.from && t <= w.to)
    let t = prof.startTime
    for (let i = 0; i < prof.samples.length; i++) {
      t += deltas[i] ?? 0
      if (inWindow(t)) hits.set(prof.samples[i]!, (hits.get(prof.samples[i]!) ?? 0) + 1)
    }
    if (windowsUs.length > 0) {
      durationMs =
        windowsUs.reduce(
          (sum, w) => sum + Math.max(0, Math.min(w.to, prof.endTime) - Math.max(w.from, prof.startTime)),
          0,
        ) / 1000
    }
  } else {
    for (const n of prof.nodes) hits.set(n.id, n.hitCount ?? 0)
  }
  const totalHits = [...hits.values()].reduce((a, b) => a + b, 0)
  let idleHits = 0
  const areaHits = new Map<string, number>()
  const fnHits = new Map<string, { fn: string; where: string; area: string; hits: number }>()
  for (const [id, h] of hits) {
    const n = byId.get(id)
    if (n === undefined || h === 0) continue
    const { functionName, url, lineNumber } = n.callFrame
    if (functionName === '(idle)') {
      idleHits += h
      continue
    }
    let area: string
    if (functionName === '(garbage collector)') area = 'GC'
    else if (functionName === '(program)') area = 'V8/native (program)'
    else if (url !== '') area = areaOf(url)
    else {
      // A native function: charge the nearest JavaScript caller's area.
      let p = parent.get(n.id)
      while (p !== undefined && p.callFrame.url === '') p = parent.get(p.id)
      area = p === undefined ? 'native/unattributed' : areaOf(p.callFrame.url)
    }
    areaHits.set(area, (areaHits.get(area) ?? 0) + h)
    const where = url === '' ? '(native)' : `${url.replace(/^.*\/(node_modules|packages)\//, '')}:${lineNumber + 1}`
    const key = `${functionName}@${where}`
    const f = fnHits.get(key) ?? { fn: functionName === '' ? '(anonymous)' : functionName, where, area, hits: 0 }
    f.hits += h
    fnHits.set(key, f)
  }
  const busy = Math.max(1, totalHits - idleHits)
  const pct = (h: number): number => Math.round((h / busy) * 1000) / 10
  return {
    file,
    durationMs: Math.round(durationMs),
    idlePercent: Math.round((idleHits / Math.max(1, totalHits)) * 1000) / 10,
    areas: [...areaHits].map(([area, h]) => ({ area, percent: pct(h) })).sort((a, b) => b.percent - a.percent),
    top: [...fnHits.values()]
      .sort((a, b) => b.hits - a.hits)
      .slice(0, topN)
      .map((f) => ({ fn: f.fn, where: f.where, area: f.area, percent: pct(f.hits) })),
  }
}

export function formatProfileSummary(s: ProfileSummary, label: string): string {
  const lines = [
    `${label}: ${s.file}`,
    `  ${(s.durationMs / 1000).toFixed(1)} s counted (measured windows), ${s.idlePercent} % idle; busy time by area:`,
  ]
  for (const a of s.areas) if (a.percent >= 0.5) lines.push(`    ${a.percent.toFixed(1).padStart(5)} %  ${a.area}`)
  lines.push('  top self time (% of busy):')
  for (const f of s.top) lines.push(`    ${f.percent.toFixed(1).padStart(5)} %  ${f.fn}  ${f.where}  [${f.area}]`)
  return lines.join('\n')
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  for (const f of process.argv.slice(2)) console.log(formatProfileSummary(summarizeProfile(f), 'profile'))
}
