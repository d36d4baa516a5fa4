/** Records for the transform tests (not part of the package's build: only tests import it). */
import type { ConnectRecord, SinkRecord } from '../../api/records.js'
import type { Schema } from '../../api/schema.js'

export const userSchema: Schema = {
  type: 'struct',
  name: 'shop.users.Value',
  fields: [
    { field: 'id', type: 'int64' },
    { field: 'email', type: 'string', optional: true },
    { field: 'age', type: 'int32', optional: true },
  ],
}

export function sinkRecord(over: Partial<SinkRecord> = {}): SinkRecord {
  return {
    topic: 'users',
    partition: 2,
    offset: 41n,
    timestamp: 1_700_000_000_000,
    key: 7,
    value: { id: 7, email: 'a@b.c', age: 30 },
    valueSchema: userSchema,
    headers: [],
    ...over,
  }
}

export function schemaless(value: unknown, over: Partial<ConnectRecord> = {}): ConnectRecord {
  return { topic: 'users', key: null, value, headers: [], ...over }
}
