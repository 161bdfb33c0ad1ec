import type { IHeaders } from 'kafkajs';
import Schema from 'typebox/schema';

/**
 * Why `value` does not match `schema`, a schema taken from a served OpenAPI or AsyncAPI
 * `document` whose `$ref`s (`#/components/…`) point into that document. Empty when it matches.
 */
export function mismatches(
  document: { components?: unknown },
  schema: object,
  value: unknown,
): string[] {
  const rooted = { components: document.components, ...schema } as Schema.XSchema;
  // The errors of an anyOf's failed branches are listed even when another branch matched.
  const [matches, errors] = Schema.Errors(rooted, value);
  return matches
    ? []
    : errors.map(({ instancePath, message }) => `${instancePath || '/'} ${message}`);
}

/** Kafka headers as the text a document shows them as (UTF-8). */
export function headersAsText(headers: IHeaders | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers ?? {}).flatMap(([name, value]) =>
      value === undefined ? [] : [[name, [value].flat().join(',')]],
    ),
  );
}
