import { Compile } from 'typebox/compile';
import { errorBody, type ErrorBody } from './errors.ts';
import { InvalidJsonError, parseJsonLosslessly } from './json.ts';
import { INT64_MAX, INT64_MIN, NewPlant, plantOf } from './plant.ts';

const newPlant = Compile(NewPlant);
const utf8 = new TextDecoder('utf-8', { fatal: true });

export type Checked = { ok: true; plant: NewPlant } | { ok: false; error: ErrorBody };

/** Validates a losslessly parsed body; unknown properties are dropped, never passed on. */
function checkNewPlant(value: unknown): Checked {
  if (newPlant.Check(value)) return { ok: true, plant: { id: value.id, ...plantOf(value) } };
  return { ok: false, error: errorBody('invalidPlant', describeFirstError(value)) };
}

/** Decodes the bytes of a create command (or an HTTP body) exactly as the gateway does. */
export function decodeNewPlant(bytes: Uint8Array | null): Checked {
  if (bytes === null || bytes.length === 0) {
    return { ok: false, error: errorBody('invalidJson', 'Body is empty') };
  }
  try {
    return checkNewPlant(parseJsonLosslessly(utf8.decode(bytes)));
  } catch (error) {
    if (error instanceof InvalidJsonError)
      return { ok: false, error: errorBody('invalidJson', error.message) };
    if (error instanceof TypeError)
      return { ok: false, error: errorBody('invalidJson', 'Body is not valid UTF-8') };
    throw error;
  }
}

function describeFirstError(value: unknown): string {
  const [first] = newPlant.Errors(value);
  if (first === undefined) return 'Body is not a NewPlant';
  if (first.instancePath === '/id') {
    return `id must be an integer from ${INT64_MIN} to ${INT64_MAX}`;
  }
  const where = first.instancePath === '' ? 'Body' : first.instancePath.slice(1);
  if (first.keyword === 'pattern') return `${where} must not contain U+0000 (NUL)`;
  return `${where} ${first.message}`;
}
