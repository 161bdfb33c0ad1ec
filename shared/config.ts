import { readFileSync } from 'node:fs';
import Type, { type Static, type TObject, type TSchema } from 'typebox';
import Value from 'typebox/value';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Reads the variables a service declares in `schema` from the environment, once at boot: applies
 * defaults, converts numbers, and fails naming the variable when one is missing or invalid. Any
 * variable may instead name a file holding its value in `<NAME>_FILE` (the Docker and Kubernetes
 * convention for secrets; one trailing newline is dropped). A `writeOnly` variable is a secret:
 * its value never appears in an error.
 */
export function readConfig<Schema extends TObject>(
  schema: Schema,
  env: NodeJS.ProcessEnv = process.env,
): Static<Schema> {
  const problems = new Map<string, string>();
  const given = Object.fromEntries(
    Object.keys(schema.properties).flatMap((name) => {
      const value = valueOf(name, env, problems);
      return value === undefined || value === '' ? [] : [[name, value]];
    }),
  );
  const config = Value.Convert(schema, Value.Default(schema, given)) as Record<string, unknown>;
  for (const [name, property] of Object.entries(schema.properties)) {
    const value = config[name];
    if (problems.has(name)) continue;
    if (value === undefined) {
      if (schema.required.includes(name)) problems.set(name, `${name} must be set`);
    } else if (!Value.Check(property, value)) {
      const got =
        (property as { writeOnly?: boolean }).writeOnly === true
          ? '(value hidden)'
          : `(got "${String(given[name])}")`;
      problems.set(name, `${name} ${expectation(property, value)} ${got}`);
    }
  }
  failOn([...problems.values()]);
  return config as Static<Schema>;
}

function valueOf(
  name: string,
  env: NodeJS.ProcessEnv,
  problems: Map<string, string>,
): string | undefined {
  const file = env[`${name}_FILE`];
  if (file === undefined || file === '') return env[name];
  if (env[name] !== undefined && env[name] !== '') {
    problems.set(name, `${name} and ${name}_FILE are both set; set only one`);
    return undefined;
  }
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    problems.set(name, `${name}_FILE cannot be read: ${(error as Error).message}`);
    return undefined;
  }
}

function expectation(property: TSchema, value: unknown): string {
  if (Type.IsUnion(property)) {
    return `must be one of ${property.anyOf.map((option) => String((option as { const?: unknown }).const)).join(', ')}`;
  }
  const [first] = Value.Errors(property, value);
  return first?.message ?? 'is invalid';
}

/** Throws one error naming every problem found after `readConfig`, when there is any. */
export function failOn(problems: readonly string[]): void {
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}

/** For entry points: a configuration error is the operator's to fix, so no stack trace. */
export function configOrExit<Config>(read: () => Config): Config {
  try {
    return read();
  } catch (error) {
    return exitOnConfigError(error);
  }
}

/** The same for a check that runs later (one the servers refuse): exits on a ConfigError. */
export function exitOnConfigError(error: unknown): never {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
