import Type, { type Static } from 'typebox';

export const ErrorBody = Type.Object({
  error: Type.Integer({ format: 'int32', description: 'Numeric error value' }),
  message: Type.String({ description: 'Error text' }),
});
export type ErrorBody = Static<typeof ErrorBody>;

/** Every `error` value the service answers with, and its HTTP status (DESIGN.md §2). */
export const ERRORS = {
  invalidPlant: { error: 4000, status: 400 },
  invalidJson: { error: 4001, status: 400 },
  malformedRequest: { error: 4002, status: 400 },
  conflictingPlant: { error: 4009, status: 400 },
  unauthorized: { error: 4010, status: 401 },
  notFound: { error: 4040, status: 404 },
  requestTimeout: { error: 4080, status: 408 },
  bodyTooLarge: { error: 4130, status: 413 },
  unsupportedMediaType: { error: 4150, status: 415 },
  expectationFailed: { error: 4170, status: 417 },
  tooManyRequests: { error: 4290, status: 429 },
  headersTooLarge: { error: 4310, status: 431 },
  internal: { error: 5000, status: 500 },
  unavailable: { error: 5030, status: 503 },
  replyTimeout: { error: 5040, status: 504 },
} as const;
export type ErrorKind = keyof typeof ERRORS;

export function errorBody(kind: ErrorKind, message: string): ErrorBody {
  return { error: ERRORS[kind].error, message };
}
