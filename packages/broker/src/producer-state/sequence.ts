/**
 * Producer sequence arithmetic (docs/kafka-facts.md §4.1): sequences are non-negative int32 values
 * that wrap from Int32.MAX to 0, so every comparison here is modular, never `<` on raw numbers.
 */
export const INT32_MAX = 0x7fffffff
/** Kafka's RecordBatch.NO_PRODUCER_ID / NO_PRODUCER_EPOCH / NO_SEQUENCE. */
export const NO_PRODUCER_ID = -1n
export const NO_PRODUCER_EPOCH = -1
export const NO_SEQUENCE = -1

/** `seq + increment` wrapping past Int32.MAX to 0 (Kafka `DefaultRecordBatch.incrementSequence`). */
export function incrementSequence(seq: number, increment: number): number {
  if (seq > INT32_MAX - increment) return increment - (INT32_MAX - seq) - 1
  return seq + increment
}

/** `seq - decrement`, wrapping below 0 to Int32.MAX (Kafka `decrementSequence`). */
export function decrementSequence(seq: number, decrement: number): number {
  if (seq < decrement) return INT32_MAX - (decrement - seq) + 1
  return seq - decrement
}

/** Whether `next` directly follows `last` (0 follows Int32.MAX). */
export function inSequence(last: number, next: number): boolean {
  return next === last + 1 || (next === 0 && last === INT32_MAX)
}
