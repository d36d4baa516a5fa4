/**
 * split(): each record goes to the first branch whose predicate it matches, else to the default
 * branch when there is one, else nowhere. The branches are children of this node, forwarded to
 * by name; the list grows as `.branch()` is called and is complete before a task exists.
 */
import type { ProcessorContext, ProcessorSupplier } from '../../api/processor.js'

export interface BranchRoute {
  readonly predicate: (key: unknown, value: unknown) => boolean
  readonly child: string
}

export interface BranchRoutes {
  readonly routes: BranchRoute[]
  defaultChild?: string
}

export function branchSupplier(routes: BranchRoutes): ProcessorSupplier<unknown, unknown, unknown, unknown> {
  return () => {
    let context: ProcessorContext<unknown, unknown> | undefined
    return {
      init(c) {
        context = c
      },
      process(record) {
        for (const route of routes.routes) {
          if (route.predicate(record.key, record.value)) {
            context?.forward(record, route.child)
            return
          }
        }
        if (routes.defaultChild !== undefined) context?.forward(record, routes.defaultChild)
      },
    }
  }
}
