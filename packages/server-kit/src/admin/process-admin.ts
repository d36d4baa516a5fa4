/**
 * How a Sluice server process (broker, metadata service) starts its admin endpoint: the
 * process's own registry on /metrics, its readiness rule on /readyz, and a failed scrape logged
 * as a warning (the scraper itself gets a 500 from admin-server.ts). Each process keeps its own
 * readiness rule and metrics; this is the wiring they share.
 */
import { startAdminServer, type AdminServer, type MetricsSource, type Readiness } from './admin-server.js'

/** The one logger call the admin endpoint makes; a pino Logger fits. */
export interface AdminLogger {
  warn(obj: { err: unknown }, msg: string): void
}

/** Where the process serves its admin endpoint (`--admin-host`, `--admin-port`; 0 = ephemeral). */
export interface ProcessAdminOptions {
  readonly host: string
  readonly port: number
  readonly logger: AdminLogger
}

export async function startProcessAdmin(
  options: ProcessAdminOptions,
  metrics: MetricsSource,
  readiness: () => Readiness,
): Promise<AdminServer> {
  return await startAdminServer({
    host: options.host,
    port: options.port,
    metrics,
    readiness,
    onError: (err) => options.logger.warn({ err }, 'collecting metrics failed'),
  })
}
