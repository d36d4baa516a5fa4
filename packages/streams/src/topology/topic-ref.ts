/**
 * A topic as the topology knows it before an application id exists: a user topic keeps its
 * name; a repartition topic is known by its user-given name and becomes
 * `<application>-<name>-repartition` only in plan() (docs/streams.md §2).
 */
export type TopicRef =
  | { readonly kind: 'user'; readonly name: string }
  | { readonly kind: 'repartition'; readonly name: string }

export function repartitionTopic(applicationId: string, name: string): string {
  return `${applicationId}-${name}-repartition`
}

export function resolveTopic(ref: TopicRef, applicationId: string): string {
  return ref.kind === 'user' ? ref.name : repartitionTopic(applicationId, ref.name)
}

/** How describe() writes a topic: Kafka shows `<name>-repartition`, without the application id. */
export function describeTopic(ref: TopicRef): string {
  return ref.kind === 'user' ? ref.name : `${ref.name}-repartition`
}
