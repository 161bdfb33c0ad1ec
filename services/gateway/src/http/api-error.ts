import { ERRORS, errorBody, type ErrorBody, type ErrorKind } from '#shared/contracts/errors.ts';

/** An answer other than 200, in the documented Error shape, with the headers it needs. */
export class ApiError extends Error {
  readonly kind: ErrorKind;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    kind: ErrorKind,
    message: string,
    options: ErrorOptions & { headers?: Record<string, string> } = {},
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
