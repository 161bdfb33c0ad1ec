import secureJson from 'secure-json-parse';
import { INT64_MAX, INT64_MIN } from './plant.ts';

declare global {
  interface JSON {
    /** Node ≥ 21 (TC39 JSON.parse source text access); not yet in TypeScript's lib. */
    rawJSON(text: string): unknown;
  }
}

const INTEGER_LITERAL = /^-?(?:0|[1-9]\d*)$/;
export const MAX_JSON_DEPTH = 128;

export class InvalidJsonError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidJsonError';
  }
}

/**
 * JSON.parse that keeps every digit: integer literals within int64 become bigints, read from
 * their source text (Node ≥ 22's reviver context), so 9223372036854775807 survives. Keys
 * `__proto__` and `constructor.prototype` are refused (prototype poisoning), and so is what
 * I-JSON (RFC 7493) forbids and JSON.parse lets through: unpaired surrogates and repeated member
 * names (JSON.parse keeps the last one, so two readers of one body could disagree on its id).
 * Nesting deeper than MAX_JSON_DEPTH is refused before parsing: the reviver recurses per level
 * and would run out of stack a few thousand levels down.
 */
export function parseJsonLosslessly(text: string): unknown {
  const { tooDeep, onlyIntegers } = scanUnparsed(text, MAX_JSON_DEPTH);
  if (tooDeep) {
    throw new InvalidJsonError(`Body nests deeper than ${String(MAX_JSON_DEPTH)} levels`);
  }
  const value = parseIntegersExactly(text, onlyIntegers);
  const repeated = repeatedMemberName(text);
  if (repeated !== undefined) {
    throw new InvalidJsonError(`Body repeats the member name ${JSON.stringify(repeated)}`);
  }
  return value;
}

/**
 * The reviver reads every value's source text, which makes JSON.parse several times dearer. Text
 * whose numbers are all integer literals (no `.`, `e` or `E` outside strings; `true` and `false`
 * fall back too) is parsed without it: each of its numbers within ±2^53 is exact as a double and
 * becomes the same bigint the reviver would make. A number beyond needs its source text.
 */
function parseIntegersExactly(text: string, onlyIntegers: boolean): unknown {
  if (onlyIntegers) {
    const value = exactly(parseSecurely(text));
    if (value !== BEYOND_SAFE) return value;
  }
  return parseSecurely(text, reviveInt64);
}

const BEYOND_SAFE = Symbol('a number beyond ±2^53');

/** `value` with its numbers as bigints and its strings checked, as `reviveInt64` leaves it. */
function exactly(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : BEYOND_SAFE;
  if (typeof value === 'string') {
    requireWellFormed(value);
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  const members = value as Record<string, unknown>;
  for (const key of Object.keys(members)) {
    requireWellFormed(key);
    const member = exactly(members[key]);
    if (member === BEYOND_SAFE) return BEYOND_SAFE;
    members[key] = member;
  }
  return value;
}

function requireWellFormed(text: string): void {
  if (!text.isWellFormed()) {
    throw new InvalidJsonError('Body carries an unpaired UTF-16 surrogate (\\ud800-\\udfff)');
  }
}

function parseSecurely(text: string, reviver?: typeof reviveInt64): unknown {
  try {
    return secureJson.parse(text, reviver, {
      protoAction: 'error',
      constructorAction: 'error',
    });
  } catch (error) {
    if (error instanceof InvalidJsonError) throw error;
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
  key: string,
  value: unknown,
  context?: { source?: string },
): unknown {
  requireWellFormed(key);
  if (typeof value === 'string') requireWellFormed(value);
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

/**
 * What one pass over the text tells before it is parsed: whether arrays and objects nest deeper
 * than `limit`, and whether every number is an integer literal (no `.`, `e` or `E` outside
 * strings).
 */
function scanUnparsed(text: string, limit: number): { tooDeep: boolean; onlyIntegers: boolean } {
  let depth = 0;
  let onlyIntegers = true;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '"') index = closingQuote(text, index);
    else if (char === '{' || char === '[') {
      if (++depth > limit) return { tooDeep: true, onlyIntegers };
    } else if (char === '}' || char === ']') depth--;
    else if (char === '.' || char === 'e' || char === 'E') onlyIntegers = false;
  }
  return { tooDeep: false, onlyIntegers };
}

/** The first member name an object repeats, in text that JSON.parse accepted. */
function repeatedMemberName(text: string): string | undefined {
  const open: (Set<string> | undefined)[] = [];
  let expectingName = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '"') {
      const end = closingQuote(text, index);
      if (expectingName) {
        const names = open.at(-1);
        const quoted = text.slice(index, end + 1);
        const name = quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1);
        if (names?.has(name)) return name;
        names?.add(name);
        expectingName = false;
      }
      index = end;
    } else if (char === '{') {
      open.push(new Set());
      expectingName = true;
    } else if (char === '[') open.push(undefined);
    else if (char === '}' || char === ']') open.pop();
    else if (char === ',') expectingName = open.at(-1) !== undefined;
  }
  return undefined;
}

function closingQuote(text: string, opening: number): number {
  let index = opening + 1;
  while (index < text.length && text[index] !== '"') index += text[index] === '\\' ? 2 : 1;
  return index;
}
