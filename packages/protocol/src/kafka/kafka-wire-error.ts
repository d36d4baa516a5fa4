import { SluiceError } from '../errors.js'

/**
 * The one error the Kafka wire codecs throw for bytes that do not parse. It is a SluiceError with
 * code INVALID_REQUEST (Kafka's own answer to a malformed request), so callers need no new error
 * id; the byte position travels in `details.position` and on the error itself, for logs.
 */
export class KafkaWireError extends SluiceError {
  readonly position: number

  constructor(message: string, position: number) {
    super('INVALID_REQUEST', `${message} (at byte ${position})`, { position })
    this.position = position
  }
}
