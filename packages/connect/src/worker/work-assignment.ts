/**
 * How the group leader spreads connectors and tasks over the workers (pure; runs in the
 * group's custom assignor, worker-group.ts). Each worker reports what it runs; the leader
 * balances the work (every worker within one item of the others), keeps each item where it
 * runs while that worker is under its share, and gives the rest to the least-loaded workers.
 * An item that must leave a live worker is withheld for one generation: its worker stops it on
 * seeing the assignment and asks for a rebalance, and the next generation places it. So no
 * connector or task runs on two workers at once; one on a worker that died is placed at once.
 */
export interface WorkItem {
  /** `connector:<name>` or `task:<name>:<id>`. */
  readonly id: string
}

export interface WorkerReport {
  readonly memberId: string
  /** Work ids the worker runs now. */
  readonly running: readonly string[]
}

export function connectorWorkId(name: string): string {
  return `connector:${name}`
}

export function taskWorkId(name: string, id: number): string {
  return `task:${name}:${id}`
}

export function parseWorkId(
  id: string,
): { kind: 'connector'; name: string } | { kind: 'task'; name: string; task: number } | undefined {
  if (id.startsWith('connector:')) return { kind: 'connector', name: id.slice('connector:'.length) }
  const m = /^task:(.*):(\d+)$/.exec(id)
  return m === null ? undefined : { kind: 'task', name: m[1]!, task: Number(m[2]) }
}

/** memberId -> the work ids it runs in the new generation. */
export function assignWork(work: readonly string[], workers: readonly WorkerReport[]): Map<string, string[]> {
  const members = [...workers].sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
  const out = new Map<string, string[]>(members.map((m) => [m.memberId, []]))
  if (members.length === 0) return out
  const todo = [...new Set(work)].sort()
  const quota = Math.ceil(todo.length / members.length)
  const placed = new Set<string>()
  const withheld = new Set<string>()
  // 1. Keep what runs where it runs, up to the worker's share; the same item claimed by two
  //    workers (a split brain at the last generation) stays with the first.
  for (const m of members) {
    const mine = out.get(m.memberId)!
    for (const id of [...m.running].sort()) {
      if (!todo.includes(id) || placed.has(id)) continue
      if (mine.length < quota) {
        mine.push(id)
        placed.add(id)
      } else {
        withheld.add(id)
      }
    }
  }
  // 2. Place the rest on the least-loaded workers (ties by member id).
  for (const id of todo) {
    if (placed.has(id) || withheld.has(id)) continue
    let best = members[0]!
    for (const m of members) if (out.get(m.memberId)!.length < out.get(best.memberId)!.length) best = m
    out.get(best.memberId)!.push(id)
    placed.add(id)
  }
  return out
}
