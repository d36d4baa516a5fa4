/**
 * Topic names follow Kafka's rule: 1-249 characters of [a-zA-Z0-9._-], not "." or "..".
 * Names starting with "__" are internal (for example __consumer_offsets).
 */
import { SluiceError } from './errors.js'

export const TOPIC_NAME_MAX_LENGTH = 249
const LEGAL = /^[a-zA-Z0-9._-]+$/

/** Returns why the name is invalid, or undefined. */
export function topicNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'topic name is empty'
  if (name === '.' || name === '..') return `topic name cannot be "${name}"`
  if (name.length > TOPIC_NAME_MAX_LENGTH)
    return `topic name is ${name.length} characters, the limit is ${TOPIC_NAME_MAX_LENGTH}`
  if (!LEGAL.test(name)) return `topic name "${name}" may only contain ASCII letters, digits, '.', '_' and '-'`
  return undefined
}

export function assertValidTopicName(name: string): void {
  const problem = topicNameProblem(name)
  if (problem !== undefined) throw new SluiceError('INVALID_TOPIC_EXCEPTION', problem, { topic: name })
}

export function isInternalTopic(name: string): boolean {
  return name.startsWith('__')
}
