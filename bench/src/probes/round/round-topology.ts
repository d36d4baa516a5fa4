/**
 * Scenario 6's shape, as the round skeleton copies it: 3 brokers, 6 partitions, every partition
 * on every broker (RF3), partition p led by broker p % 3, the high watermark the smallest log
 * end offset of the three (every replica is in the ISR while the load runs, so min.insync.replicas
 * 2 never decides anything), one fetch connection per follower and leader covering the
 * partitions that leader leads, and one produce and one fetch connection per client and broker.
 */
export const ROUND_BROKERS = 3
export const ROUND_PARTITIONS = 6
export const ROUND_TOPIC = 'round-skeleton'
/** A parked fetch waits this long at most (Sluice's follower and the bench consumer's maxWaitMs are 500). */
export const ROUND_MAX_WAIT_MS = 500

export function leaderOf(partition: number): number {
  return partition % ROUND_BROKERS
}

/** The partitions broker `leader` leads. */
export function ledBy(leader: number): number[] {
  return Array.from({ length: ROUND_PARTITIONS }, (_, p) => p).filter((p) => leaderOf(p) === leader)
}
