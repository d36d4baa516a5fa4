/**
 * Child processes this benchmark spawned itself (load workers, profiled brokers): killed when
 * the benchmark exits, however it exits, so an interrupted run leaves nothing behind. testkit
 * tracks the processes it spawns on its own (stopAll).
 */
import type { ChildProcess } from 'node:child_process'

const children = new Set<ChildProcess>()

export function registerChild(child: ChildProcess): void {
  children.add(child)
  child.once('exit', () => children.delete(child))
}

process.once('exit', () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL')
})
