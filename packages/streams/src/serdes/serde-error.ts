/** The one way a serde reports input it cannot read or write (api/serde.ts): StreamsError 'SERDE'. */
import { StreamsError } from '../errors.js'

export function serdeError(serde: string, topic: string, what: string, cause?: unknown): StreamsError {
  const reason = cause instanceof Error ? `: ${cause.message}` : ''
  return new StreamsError('SERDE', `serde '${serde}' (topic '${topic}'): ${what}${reason}`, {
    cause,
    details: { serde, topic },
  })
}
