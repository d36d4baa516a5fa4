/**
 * ApiVersions (key 18), versions 0-3: the first request of every Kafka client, telling it which
 * APIs and versions this broker answers. The list is the listener's (every registered handler's
 * range intersected with its codec's), so it never names a version the listener would refuse.
 * Throttling and features are not used: throttle time 0, no supported or finalized features.
 */
import { errorId } from '@sluice/protocol'
import { ApiVersionsApi, type ApiVersionsRequest, type ApiVersionsResponse } from './codec-stand-in.js'
import type { KafkaApiHandler, KafkaApiVersionRange } from './kafka-api-handler.js'

/**
 * KIP-511's rule for the client software name and version ApiVersions v3+ carries (kcat sends
 * "librdkafka" and its version): letters, digits, '-' and '.', starting and ending with a letter
 * or digit. Kafka answers INVALID_REQUEST otherwise.
 */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/

/** The answer listing `apis`, with `errorCode` (0, or UNSUPPORTED_VERSION for a too-new request). */
export function apiVersionsResponse(apis: readonly KafkaApiVersionRange[], errorCode = 0): ApiVersionsResponse {
  return {
    errorCode,
    apiKeys: apis.map((a) => ({ apiKey: a.apiKey, minVersion: a.minVersion, maxVersion: a.maxVersion })),
    throttleTimeMs: 0,
    supportedFeatures: [],
    finalizedFeaturesEpoch: -1n,
    finalizedFeatures: [],
    zkMigrationReady: false,
  }
}

export const apiVersionsHandler: KafkaApiHandler<ApiVersionsRequest, ApiVersionsResponse> = {
  codec: ApiVersionsApi,
  minVersion: 0,
  maxVersion: 3,
  async handle(req, version, ctx) {
    if (
      version >= 3 &&
      !(SOFTWARE_PATTERN.test(req.clientSoftwareName) && SOFTWARE_PATTERN.test(req.clientSoftwareVersion))
    ) {
      // As Kafka: the error alone, no API list, so a client with a broken name notices.
      return apiVersionsResponse([], errorId('INVALID_REQUEST'))
    }
    return apiVersionsResponse(ctx.listener.apis)
  },
}
