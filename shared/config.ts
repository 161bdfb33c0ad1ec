import type { Static, TObject } from 'typebox';
import Value from 'typebox/value';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the variables a service declares in `schema` from the environment, once at boot: applies
 * defaults, converts numbers, and fails naming the variable when one is missing or invalid.
 */
export function readConfig<Schema extends TObject>(
  schema: Schema,
  env: NodeJS.ProcessEnv = process.env,
): Static<Schema> {
  const given = Object.fromEntries(
    Object.keys(schema.properties).flatMap((name) => {
      const value = env[name];
      return value === undefined || value === '' ? [] : [[name, value]];
    }),
  );
  const config = Value.Convert(schema, Value.Default(schema, given));
  if (Value.Check(schema, config)) return config;
  const problems = [...Value.Errors(schema, config)].map((error) => {
    const missing = (error.params as { requiredProperties?: string[] }).requiredProperties;
    if (missing) return `${missing.join(', ')} must be set`;
    const name = error.instancePath.slice(1);
    return `${name} ${error.message} (got "${env[name] ?? ''}")`;
  });
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}

/** For entry points: a configuration error is the operator's to fix, so no stack trace. */
export function configOrExit<Config>(read: () => Config): Config {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}
