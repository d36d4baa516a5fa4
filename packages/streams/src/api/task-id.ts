/** A task's id: sub-topology and partition, written `<subtopology>_<partition>` as Kafka does. */
export interface TaskId {
  readonly subtopology: number
  readonly partition: number
}

export function taskIdString(id: TaskId): string {
  return `${id.subtopology}_${id.partition}`
}
