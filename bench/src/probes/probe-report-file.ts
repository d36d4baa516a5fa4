/**
 * The probes' JSON file: written by `--probes` as bench/results/probes-<timestamp>.json, read by
 * `--anatomy --probes-file <path | latest>` to put the floors beside the anatomy's hops without
 * measuring them again.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { RESULTS_DIR } from '../results.js'
import type { ProbeReport } from './probe-result.js'

export async function writeProbeReport(stamp: string, report: ProbeReport): Promise<string> {
  await mkdir(RESULTS_DIR, { recursive: true })
  const file = path.join(RESULTS_DIR, `probes-${stamp}.json`)
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`)
  return file
}

/** `latest` = the newest probes-*.json in bench/results/ (names sort by time). */
export async function readProbeReport(fileOrLatest: string): Promise<{ file: string; report: ProbeReport }> {
  let file = fileOrLatest
  if (fileOrLatest === 'latest') {
    const names = (await readdir(RESULTS_DIR).catch(() => [] as string[]))
      .filter((f) => f.startsWith('probes-') && f.endsWith('.json'))
      .sort()
    const newest = names[names.length - 1]
    if (newest === undefined) throw new Error(`no probes-*.json in ${RESULTS_DIR}: run --probes first`)
    file = path.join(RESULTS_DIR, newest)
  }
  const report = JSON.parse(await readFile(file, 'utf8')) as ProbeReport
  if (!Array.isArray(report.results)) throw new Error(`${file} is not a probes report (no results list)`)
  return { file, report }
}
