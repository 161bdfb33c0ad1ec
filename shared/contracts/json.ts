import secureJson from 'secure-json-parse';
import { INT64_MAX, INT64_MIN } from './plant.ts';

declare global {
  interface JSON {
    /** Node ≥ 21 (TC39 JSON.parse source text access); not yet in TypeScript's lib. */
    rawJSON(text: string): unknown;
  }
}

const INTEGER_LITERAL = /^-?(?:0|[1-9]\d*)$/;

export class InvalidJsonError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidJsonError';
  }
}

/**
 * JSON.parse that keeps every digit: integer literals within int64 become bigints, read from
 * their source text (Node ≥ 22's reviver context), so 9223372036854775807 survives. Keys
 * `__proto__` and `constructor.prototype` are refused (prototype poisoning).
 */
export function parseJsonLosslessly(text: string): unknown {
  try {
    return secureJson.parse(text, reviveInt64, {
      protoAction: 'error',
      constructorAction: 'error',
    });
  } catch (error) {
    const poisoned = error instanceof Error && error.message.includes('forbidden prototype');
    throw new InvalidJsonError(
      poisoned
        ? 'Body carries a forbidden prototype key (__proto__ or constructor.prototype)'
        : `Body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function reviveInt64(
  this: unknown,
  _key: string,
  value: unknown,
  context?: { source?: string },
): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value;
  if (!INTEGER_LITERAL.test(context.source)) return value;
  const exact = BigInt(context.source);
  return exact >= INT64_MIN && exact <= INT64_MAX ? exact : value;
}

/** JSON.stringify that writes bigints as JSON numbers with every digit. */
export function stringifyJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint' ? JSON.rawJSON(item.toString()) : item,
  );
}
