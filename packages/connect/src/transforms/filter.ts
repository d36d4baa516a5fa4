/**
 * Filter (Kafka's `org.apache.kafka.connect.transforms.Filter`): drops every record it is
 * applied to; with a predicate (`transforms.x.predicate`, maybe `negate`) it drops the records
 * the predicate picks.
 */
import type { ConnectRecord } from '../api/records.js'
import type { Transformation } from '../api/transform.js'

export class Filter<R extends ConnectRecord = ConnectRecord> implements Transformation<R> {
  readonly configDef = []
  configure(): void {}
  apply(): null {
    return null
  }
}
