/**
 * V8 settings for the long-running server processes (broker, metadata service), applied first
 * thing in their main().
 *
 * **Object shapes outlive full collections** (`--retain-maps-for-n-gc`). Optimised code checks
 * the hidden classes ("maps") of the objects it reads and is thrown away when a map it checks
 * dies. A map whose objects are all garbage survives only `n` full collections (V8's default:
 * 2). A server at a low rate holds no request objects between two requests, so the maps of its
 * request path (readers and writers, decoded requests, Node's own write requests) were all dead
 * at the moment of a full collection. V8's memory reducer runs one after about 100 s of light
 * allocation. Each such collection deoptimised about 70 functions of the request path at once,
 * and the broker then spent about 150 ms recompiling them and ran slower code for about 10 s
 * (BENCHMARKS.md, "deopt storms"). Keeping those maps costs a few kilobytes.
 *
 * The flag is read at every full collection, so setting it at run time works: nothing needs to
 * be on the `node` command line, and every launcher (CLI, compose, Kubernetes, tests) gets it.
 */
import { setFlagsFromString } from 'node:v8'

/** Full collections a map with no live object survives (V8's default is 2). */
export const RETAINED_MAP_GCS = 1_000_000

/** The V8 flags servers run with (docs/decisions.md "V8 keeps the request path's shapes"). */
export const SERVER_V8_FLAGS: readonly string[] = [`--retain-maps-for-n-gc=${RETAINED_MAP_GCS}`]

export function tuneV8ForServer(): void {
  for (const flag of SERVER_V8_FLAGS) setFlagsFromString(flag)
}
