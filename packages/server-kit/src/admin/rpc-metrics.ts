/**
 * Request count and latency per RPC, the same two series in every process:
 *
 *   sluice_rpc_requests_total{service, method, code}            counter
 *   sluice_rpc_request_duration_seconds{service, method, code}  histogram
 *
 * `code` is OK or the Sluice error name of a whole-request failure (per-item errors inside a
 * successful answer are counted by the processes' own error counters). On a stream (Produce,
 * Fetch, BrokerSession) each request message counts, not the stream.
 *
 * Hot path: `RpcProbe` holds the cells of its method (cell-metrics.ts), the OK ones resolved once,
 * so a request costs two `performance.now()` calls and two number adds, with no label strings
 * built or hashed.
 */
import type { Registry } from 'prom-client'
import { SluiceError } from '@sluice/protocol'
import { CellCounter, CellHistogram, type CounterCell, type HistogramCell } from './cell-metrics.js'

/** Seconds; from sub-millisecond metadata reads to long-polls and rebalances waiting for members. */
export const RPC_DURATION_BUCKETS_SECONDS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
]

export class RpcMetrics {
  private readonly requests: CellCounter
  private readonly duration: CellHistogram

  constructor(registry: Registry) {
    this.requests = new CellCounter({
      name: 'sluice_rpc_requests_total',
      help: 'Requests answered, per gRPC service and method and result code (OK or the Sluice error name of a failed request).',
      labelNames: ['service', 'method', 'code'],
      registers: [registry],
    })
    this.duration = new CellHistogram({
      name: 'sluice_rpc_request_duration_seconds',
      help: 'Time from receiving a request to its answer, per gRPC service, method and result code.',
      labelNames: ['service', 'method', 'code'],
      buckets: RPC_DURATION_BUCKETS_SECONDS,
      registers: [registry],
    })
  }

  probe(service: string, method: string): RpcProbe {
    return new RpcProbe(this.requests, this.duration, service, method)
  }
}

interface Children {
  readonly count: CounterCell
  readonly duration: HistogramCell
}

export class RpcProbe {
  private readonly ok: Children
  private readonly failed = new Map<string, Children>()

  constructor(
    private readonly requests: CellCounter,
    private readonly duration: CellHistogram,
    private readonly service: string,
    private readonly method: string,
  ) {
    this.ok = this.children('OK')
  }

  /** Records one answered request that started at `startMs` (performance.now()). */
  done(startMs: number, err?: unknown): void {
    const c = err === undefined ? this.ok : this.childrenFor(errorName(err))
    c.count.inc()
    c.duration.observe((performance.now() - startMs) / 1000)
  }

  /**
   * `fn` with every call counted and timed; rejections pass through unchanged. The caller gets
   * `fn`'s own promise and the timing hangs off it as a second reaction, so the wrapper adds no
   * microtask hop between the handler's answer and whoever waits for it (issue 16); an async
   * wrapper that awaited and returned it added one on every request.
   */
  wrap<A extends unknown[], R>(fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return (...args: A): Promise<R> => {
      const start = performance.now()
      let answer: Promise<R>
      try {
        // Promise.resolve hands back a native promise as it is: no extra hop.
        answer = Promise.resolve(fn(...args))
      } catch (err) {
        answer = Promise.reject(err)
      }
      answer.then(
        () => this.safeDone(start),
        (err: unknown) => this.safeDone(start, err),
      )
      return answer
    }
  }

  /** done() off the answer's path: a metrics failure must not become an unhandled rejection. */
  private safeDone(startMs: number, err?: unknown): void {
    try {
      this.done(startMs, err)
    } catch {
      // A metric that cannot be recorded is dropped; the answer is unaffected.
    }
  }

  private childrenFor(code: string): Children {
    let c = this.failed.get(code)
    if (c === undefined) {
      c = this.children(code)
      this.failed.set(code, c)
    }
    return c
  }

  private children(code: string): Children {
    return {
      count: this.requests.cell(this.service, this.method, code),
      duration: this.duration.cell(this.service, this.method, code),
    }
  }
}

/** The bounded label value for a failure: the error-table name, never free text. */
export function errorName(err: unknown): string {
  return err instanceof SluiceError ? err.code : 'UNKNOWN_SERVER_ERROR'
}
