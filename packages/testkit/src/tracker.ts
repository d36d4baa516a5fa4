/**
 * Everything testkit starts (in-process clusters, child processes, temp dirs) is registered here
 * until it is stopped, so a test can clean up whatever it left behind with `stopAll()`, and so a
 * dying parent process does not leave orphaned servers holding ports: on `exit`, every child
 * still running gets SIGKILL (the only thing an exit handler can still do synchronously).
 */

export interface Stoppable {
  readonly description: string
  stop(): Promise<unknown>
}

const live = new Set<Stoppable>()
const liveChildren = new Set<{ kill: (signal: NodeJS.Signals) => unknown }>()
let exitHookInstalled = false

export function track(item: Stoppable): () => void {
  live.add(item)
  return () => {
    live.delete(item)
  }
}

/** Child processes are also killed synchronously if this process exits without stopping them. */
export function trackChild(child: { kill: (signal: NodeJS.Signals) => unknown }): () => void {
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on('exit', () => {
      for (const c of liveChildren) {
        try {
          c.kill('SIGKILL')
        } catch {
          /* already gone */
        }
      }
    })
  }
  liveChildren.add(child)
  return () => {
    liveChildren.delete(child)
  }
}

/** What is still running, e.g. to assert a test left nothing behind. */
export function liveResources(): string[] {
  return [...live].map((s) => s.description)
}

/** Stops everything still tracked, newest first; collects failures instead of stopping early. */
export async function stopAll(): Promise<void> {
  const items = [...live].reverse()
  const errors: unknown[] = []
  for (const item of items) {
    try {
      await item.stop()
    } catch (err) {
      errors.push(err)
    }
    live.delete(item)
  }
  if (errors.length > 0) throw new AggregateError(errors, `stopAll: ${errors.length} resource(s) failed to stop`)
}
