/**
 * The SDK logs through a minimal, pino-compatible interface so applications can pass their own
 * pino logger (or anything shaped like it) and the SDK never imports a logging library itself.
 * The default is silent: a library should not write to stdout unless asked.
 */
export type LogFn = (obj: Record<string, unknown>, msg?: string) => void

export interface Logger {
  debug: LogFn
  info: LogFn
  warn: LogFn
  error: LogFn
  child(bindings: Record<string, unknown>): Logger
}

const noop: LogFn = () => {}

/** A logger that drops everything; the default when `connect` gets no logger. */
export const silentLogger: Logger = {
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
}
