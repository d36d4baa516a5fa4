/**
 * Node-level configuration for every Sluice process comes from three layers, later ones winning:
 * a JSON file (`--config <path>` or SLUICE_CONFIG), environment variables (`SLUICE_<NAME>` in
 * UPPER_SNAKE, e.g. SLUICE_BROKER_ID), and command-line flags (`--broker-id 1` or
 * `--broker-id=1`, kebab-case). Names are normalised to camelCase. Values stay strings (or the
 * file's JSON types); each process validates the merged object with its own schema and lists
 * every violation before exiting.
 */
import { readFileSync } from 'node:fs';
export function camelToSnakeUpper(name) {
    return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}
export function kebabToCamel(name) {
    return name.replace(/-([a-z0-9])/g, (_, c) => c.toUpperCase());
}
export function loadConfigLayers(sources) {
    const problems = [];
    const flags = {};
    const argv = sources.argv ?? [];
    for (let i = 0; i < argv.length; i++) {
        const arg = argv[i];
        if (!arg.startsWith('--')) {
            problems.push(`unexpected argument "${arg}"`);
            continue;
        }
        const eq = arg.indexOf('=');
        const name = kebabToCamel(arg.slice(2, eq < 0 ? undefined : eq));
        let value;
        if (eq >= 0)
            value = arg.slice(eq + 1);
        else if (i + 1 < argv.length && !argv[i + 1].startsWith('--'))
            value = argv[++i];
        else
            value = 'true';
        const known = name === 'config' || sources.keys.includes(name);
        if (!known) {
            problems.push(`unknown flag --${arg.slice(2, eq < 0 ? undefined : eq)}`);
            continue;
        }
        flags[name] = value;
    }
    const env = sources.env ?? {};
    const fromEnv = {};
    for (const key of sources.keys) {
        const v = env[`SLUICE_${camelToSnakeUpper(key)}`];
        if (v !== undefined && v !== '')
            fromEnv[key] = v;
    }
    let fromFile = {};
    const file = flags.config ?? env.SLUICE_CONFIG;
    if (file !== undefined) {
        try {
            const parsed = JSON.parse(readFileSync(file, 'utf8'));
            if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
                problems.push(`config file ${file} must hold a JSON object`);
            else
                fromFile = parsed;
            for (const k of Object.keys(fromFile))
                if (!sources.keys.includes(k))
                    problems.push(`config file ${file}: unknown key "${k}"`);
        }
        catch (e) {
            problems.push(`cannot read config file ${file}: ${e.message}`);
        }
    }
    delete flags.config;
    return { values: { ...fromFile, ...fromEnv, ...flags }, problems };
}
//# sourceMappingURL=config-layers.js.map