/** @sluice/console: the web console's server, a JSON API over the SDK (docs/console.md). */
export { startConsoleServer, type ConsoleServer, type ConsoleServerOptions } from './console-server.js'
export type { ConsoleErrorCode } from './errors.js'
