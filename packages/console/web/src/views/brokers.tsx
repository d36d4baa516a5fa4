/**
 * Brokers (/brokers): every broker with health, ports, leader and replica counts (a broker that
 * is down is listed too). Reads /api/brokers; a server without that route still gets the list
 * from /api/cluster.
 */
import type { BrokerRow, Cluster } from '../api/types.js'
import { ErrorBox, Loaded, Loading } from '../components/states.js'
import { ApiError, useApi } from '../use-api.js'
import { BrokerTable } from './broker-table.js'

interface BrokersAnswer {
  readonly controller: number
  readonly items: BrokerRow[]
  readonly total: number
}

export function BrokersView() {
  const brokers = useApi<BrokersAnswer>('/api/brokers', { pollMs: 5000 })
  const missing = brokers.error instanceof ApiError && brokers.error.unavailable
  // Only asked when the server has no /api/brokers, to still show the list.
  const cluster = useApi<Cluster>(missing ? '/api/cluster' : null)
  return (
    <section>
      <h1>Brokers</h1>
      {missing ? (
        <Loaded state={cluster} what="brokers">
          {(c) => <BrokerTable brokers={c.brokers} />}
        </Loaded>
      ) : (
        <>
          {brokers.error !== undefined && <ErrorBox error={brokers.error} retry={brokers.reload} />}
          {brokers.data === undefined && brokers.error === undefined && <Loading what="brokers" />}
          {brokers.data !== undefined && <BrokerTable brokers={brokers.data.items} />}
        </>
      )}
    </section>
  )
}
