/**
 * A regex that must match a whole string, as Java's `Matcher.matches()` (what Kafka's
 * RegexRouter and TopicNameMatches use), compiled from config text.
 */
export function compileFullMatch(source: string): { regex?: RegExp; problem?: string } {
  try {
    return { regex: new RegExp(`^(?:${source})$`) }
  } catch (e) {
    return { problem: `not a valid regex: ${e instanceof Error ? e.message : String(e)}` }
  }
}
