/**
 * What happens to a record between a task and a topic, per connector: the transform chain and
 * the key and value converters. Source records are transformed, then converted to bytes; sink
 * records are converted from bytes, then transformed. The worker builds one per connector from
 * its config (worker defaults for the converters).
 */
import type { Converter } from '../api/converter.js'
import type { ConnectRecord } from '../api/records.js'

export interface RecordPipeline {
  readonly keyConverter: Converter
  readonly valueConverter: Converter
  /** The converters' class names as configured (for error reports and dead-letter headers). */
  readonly keyConverterClass: string
  readonly valueConverterClass: string
  /** The record after every transform, or null when one dropped it. */
  transform<R extends ConnectRecord>(record: R): R | null
}
