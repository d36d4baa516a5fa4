/**
 * Every topic-level config: Kafka's name, default, bounds and parser. The metadata service
 * validates overrides against this table and stores only overrides under /config/topics/<topic>;
 * brokers compute the effective config (default or override) from it. docs/topic-configs.md is
 * the user-facing copy of this table.
 */
import { SluiceError } from './errors.js';
const ok = (value) => ({ ok: true, value });
const bad = (error) => ({ ok: false, error });
function int(min, max, dflt, doc) {
    return {
        default: dflt,
        doc,
        parse(text) {
            if (!/^-?\d+$/.test(text.trim()))
                return bad(`"${text}" is not an integer`);
            const n = Number(text);
            if (!Number.isSafeInteger(n) || n < min || n > max)
                return bad(`${n} is outside [${min}, ${max}]`);
            return ok(n);
        },
    };
}
function oneOf(values, dflt, doc) {
    return {
        default: dflt,
        doc,
        parse(text) {
            const v = text.trim().split(',').map((s) => s.trim()).sort().join(',');
            return values.includes(v) ? ok(v) : bad(`"${text}" is not one of ${values.join(' | ')}`);
        },
    };
}
function bool(dflt, doc) {
    return {
        default: dflt,
        doc,
        parse(text) {
            const t = text.trim().toLowerCase();
            return t === 'true' ? ok(true) : t === 'false' ? ok(false) : bad(`"${text}" is not true or false`);
        },
    };
}
const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_LONG = Number.MAX_SAFE_INTEGER;
export const TOPIC_CONFIG_SPECS = {
    'segment.bytes': int(14, 2 ** 31 - 1, 1024 * 1024 * 1024, 'Roll the active segment once it would exceed this size.'),
    'segment.ms': int(1, MAX_LONG, 7 * DAY_MS, 'Roll a non-empty active segment once its records span this long.'),
    'segment.index.bytes': int(8, 2 ** 31 - 1, 10 * 1024 * 1024, 'Roll the segment once its offset index would exceed this size.'),
    'index.interval.bytes': int(0, 2 ** 31 - 1, 4096, 'Bytes of batches between two sparse index entries.'),
    'retention.ms': int(-1, MAX_LONG, 7 * DAY_MS, 'Delete closed segments whose newest record is older than this; -1 = keep forever.'),
    'retention.bytes': int(-1, MAX_LONG, -1, 'Delete the oldest closed segments while the partition is larger than this; -1 = no limit.'),
    'max.message.bytes': int(0, 2 ** 31 - 1, 1024 * 1024 + 12, 'Largest record batch the broker accepts for this topic.'),
    'cleanup.policy': oneOf(['delete', 'compact', 'compact,delete'], 'delete', 'delete, compact, or both.'),
    'delete.retention.ms': int(0, MAX_LONG, DAY_MS, 'How long tombstones survive compaction.'),
    'min.insync.replicas': int(1, 2 ** 31 - 1, 1, 'With acks=all, fewer in-sync replicas than this rejects the produce.'),
    'unclean.leader.election.enable': bool(false, 'Allow an out-of-sync replica to become leader (may lose data).'),
    'message.timestamp.type': oneOf(['CreateTime', 'LogAppendTime'], 'CreateTime', 'Record timestamps from the producer, or the broker\'s append time.'),
    'flush': oneOf(['replication', 'fsync'], 'replication', 'replication: page cache, safety from replicas; fsync: acknowledge only after fdatasync.'),
};
export const TOPIC_CONFIG_NAMES = Object.keys(TOPIC_CONFIG_SPECS);
export function defaultTopicConfig() {
    const out = {};
    for (const name of TOPIC_CONFIG_NAMES)
        out[name] = TOPIC_CONFIG_SPECS[name].default;
    return out;
}
/**
 * Validates overrides (string values, as stored and sent on the wire). Throws INVALID_CONFIG
 * listing every bad entry; returns the normalised string map.
 */
export function validateTopicConfigOverrides(overrides) {
    const problems = [];
    const out = {};
    for (const [name, value] of Object.entries(overrides)) {
        if (!(name in TOPIC_CONFIG_SPECS)) {
            problems.push(`unknown config "${name}"`);
            continue;
        }
        const parsed = TOPIC_CONFIG_SPECS[name].parse(String(value));
        if (!parsed.ok) {
            problems.push(`${name}: ${parsed.error}`);
            continue;
        }
        out[name] = String(parsed.value);
    }
    if (problems.length > 0)
        throw new SluiceError('INVALID_CONFIG', problems.join('; '), { problems });
    return out;
}
/** The effective config: defaults with validated overrides applied. */
export function effectiveTopicConfig(overrides) {
    const cfg = defaultTopicConfig();
    for (const [name, value] of Object.entries(validateTopicConfigOverrides(overrides))) {
        const parsed = TOPIC_CONFIG_SPECS[name].parse(value);
        if (parsed.ok)
            cfg[name] = parsed.value;
    }
    return cfg;
}
//# sourceMappingURL=topic-config.js.map