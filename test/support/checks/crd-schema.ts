import { parseAllDocuments } from 'yaml';

type Schema = Record<string, unknown>;

interface CustomResourceDefinition {
  kind: 'CustomResourceDefinition';
  spec: {
    group: string;
    names: { kind: string };
    versions: { name: string; served: boolean; schema: { openAPIV3Schema: Schema } }[];
  };
}

/**
 * The JSON Schema a custom resource of `apiVersion` must satisfy: the version's openAPIV3Schema
 * as the API server applies it with `kubectl apply`'s strict field validation, which refuses
 * unknown fields (except under `x-kubernetes-preserve-unknown-fields`) and accepts null where a
 * field is `nullable`. CEL rules (`x-kubernetes-validations`) are not evaluated.
 */
export function customResourceSchema(crdYaml: string, apiVersion: string): Schema {
  const crd = parseAllDocuments(crdYaml)
    .map((document) => document.toJS() as unknown)
    .find(isCustomResourceDefinition);
  if (crd === undefined) throw new Error('No CustomResourceDefinition in the file');
  const { group, names, versions } = crd.spec;
  const version = versions.find((each) => `${group}/${each.name}` === apiVersion && each.served);
  if (version === undefined) throw new Error(`${names.kind} does not serve ${apiVersion}`);
  const schema = strict(version.schema.openAPIV3Schema);
  return {
    ...schema,
    properties: {
      ...(schema.properties as Schema),
      apiVersion: { const: apiVersion },
      kind: { const: names.kind },
      metadata: { type: 'object', required: ['name'] },
    },
    required: [...new Set([...((schema.required as string[] | undefined) ?? []), 'metadata'])],
  };
}

function isCustomResourceDefinition(value: unknown): value is CustomResourceDefinition {
  return (value as { kind?: unknown } | null)?.kind === 'CustomResourceDefinition';
}

/**
 * Structural schemas declare every field in `properties`, `items` and `additionalProperties`;
 * `allOf`/`anyOf`/`oneOf`/`not` only add constraints on those, so they are left as they are.
 */
function strict(schema: Schema): Schema {
  const result: Schema = { ...schema };
  if (typeof result.pattern === 'string') result.pattern = withoutInlineFlags(result.pattern);
  if (result.nullable === true && typeof result.type === 'string') {
    result.type = [result.type, 'null'];
  }
  const properties = result.properties as Record<string, Schema> | undefined;
  if (properties !== undefined) {
    result.properties = Object.fromEntries(
      Object.entries(properties).map(([name, child]) => [name, strict(child)]),
    );
    if (
      result.additionalProperties === undefined &&
      result['x-kubernetes-preserve-unknown-fields'] !== true
    ) {
      result.additionalProperties = false;
    }
  }
  for (const key of ['items', 'additionalProperties'] as const) {
    const child = result[key];
    if (typeof child === 'object' && child !== null) result[key] = strict(child as Schema);
  }
  return result;
}

/**
 * Go's RE2 takes inline flags anywhere (`^(?i)(abort|warn)?$`, in the Prometheus Operator's
 * PrometheusRule CRD); check-jsonschema checks patterns as ECMAScript regular expressions, which
 * have none. A leading case-insensitive flag is spelt out instead: each letter outside a class
 * becomes both of its cases (`[aA]`).
 */
function withoutInlineFlags(pattern: string): string {
  const flagged = /^\^\(\?i\)/.exec(pattern);
  if (flagged === null) return pattern;
  let result = '^';
  let inClass = false;
  for (let index = flagged[0].length; index < pattern.length; index++) {
    const char = pattern.charAt(index);
    if (char === '\\') {
      result += char + pattern.charAt(++index);
      continue;
    }
    if (char === '[') inClass = true;
    if (char === ']') inClass = false;
    const both = char.toLowerCase() + char.toUpperCase();
    result += !inClass && /^[a-z]{2}$/i.test(both) && both[0] !== both[1] ? `[${both}]` : char;
  }
  return result;
}
