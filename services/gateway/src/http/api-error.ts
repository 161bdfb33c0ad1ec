import { ERRORS, errorBody, type ErrorBody, type ErrorKind } from '#shared/contracts/errors.ts';

/** An answer other than 200, in the documented Error shape, with the headers it needs. */
export class ApiError extends Error {
  readonly kind: ErrorKind;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    kind: ErrorKind,
    message: string,
    options: ErrorOptions & { headers?: Readonly<Record<string, string>> } = {},
  ) {
    super(message, options);
    this.name = 'ApiError';
    this.kind = kind;
    this.headers = options.headers ?? {};
  }

  get status(): number {
    return ERRORS[this.kind].status;
  }

  get body(): ErrorBody {
    return errorBody(this.kind, this.message);
  }
}

/** What a 503 carries: the client may retry after a second. Shared by every such error, so read-only. */
export const RETRY_SHORTLY = { headers: { 'retry-after': '1' } } as const;

/** Why a create is refused when `waiting` creates already wait for writers: as many as are admitted. */
export function busyMessage(waiting: number): string {
  return `${String(waiting)} requests are already waiting for writers; retry shortly`;
}

export function createsBusy(waiting: number): ApiError {
  return new ApiError('unavailable', busyMessage(waiting), RETRY_SHORTLY);
}
