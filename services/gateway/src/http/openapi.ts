import { ERRORS, ErrorBody, type ErrorKind } from '#shared/contracts/errors.ts';
import { MAX_JSON_DEPTH } from '#shared/contracts/json.ts';
import { INT64_ON_THE_WIRE, NewPlant, Plant } from '#shared/contracts/plant.ts';

const RETRY_AFTER = {
  description: 'Seconds to wait before retrying',
  required: true,
  schema: { type: 'string', pattern: '^[0-9]+$' },
};

/** Answered on no operation of the document: a path that does not exist, a method not allowed. */
type OutsideOperations = 'notFound' | 'methodNotAllowed';

interface ErrorResponse<Kind extends ErrorKind = Exclude<ErrorKind, OutsideOperations>> {
  description: string;
  errors: Kind[];
  headers?: Record<string, unknown>;
}

/** Statuses POST /plants answers besides 200, each with the `error` values it carries. */
const RESPONSES: Record<string, ErrorResponse> = {
  '400': {
    // The seed's wording; the examples name the four cases.
    description: 'unexpected error',
    errors: ['invalidPlant', 'invalidJson', 'malformedRequest', 'conflictingPlant'],
  },
  '401': {
    description: 'missing, malformed or invalid bearer token',
    errors: ['unauthorized'],
    headers: {
      'WWW-Authenticate': {
        description:
          'RFC 6750: `Bearer realm="plant-store"`, with `error="invalid_token"` when a token was ' +
          'sent but not accepted, `error="invalid_request"` for two Authorization headers',
        required: true,
        schema: { type: 'string', pattern: '^Bearer realm="plant-store"' },
      },
    },
  },
  '408': {
    description: 'the request was not received completely within the request timeout',
    errors: ['requestTimeout'],
  },
  '413': { description: 'body larger than the configured limit', errors: ['bodyTooLarge'] },
  '415': { description: 'Content-Type is not application/json', errors: ['unsupportedMediaType'] },
  '417': {
    description: 'Expect asks for something other than 100-continue',
    errors: ['expectationFailed'],
  },
  '429': {
    description: 'this token made more creates this minute than allowed; retry after Retry-After',
    errors: ['tooManyRequests'],
    headers: { 'Retry-After': RETRY_AFTER },
  },
  '431': {
    description: 'request line and headers larger than the server accepts',
    errors: ['headersTooLarge'],
  },
  '500': { description: 'unexpected internal error', errors: ['internal'] },
  '503': {
    description: 'cannot accept work now (Kafka, overload, shutdown); retry after Retry-After',
    errors: ['unavailable'],
    headers: { 'Retry-After': RETRY_AFTER },
  },
  '504': {
    description:
      'no writer answered within the deadline; the outcome is unknown and an identical retry is safe',
    errors: ['replyTimeout'],
  },
};

/**
 * Any other method on a path: OpenAPI 3.0 lists answers per operation and none answers this, so
 * it is a reusable response the operation's description points to, not a status of POST.
 */
const methodNotAllowed = (allowed: string): ErrorResponse<'methodNotAllowed'> => ({
  description: `any method but ${allowed}, before authentication; Allow names the methods allowed`,
  errors: ['methodNotAllowed'],
  headers: {
    Allow: {
      description: 'RFC 9110 §10.2.1: the methods this path allows',
      required: true,
      schema: { type: 'string', enum: [allowed] },
    },
  },
});

/** What OpenAPI 3.0 cannot express: refusals of bodies that match the NewPlant schema. */
const NEW_PLANT_REFUSALS =
  'Unknown properties are allowed and ignored: not stored, not forwarded, not echoed. ' +
  'A body that matches this schema is still refused with 400/4001 when it carries a `__proto__` ' +
  'or `constructor.prototype` key at any depth, names a member twice, holds an unpaired ' +
  `surrogate or nests deeper than ${String(MAX_JSON_DEPTH)} levels (I-JSON, RFC 7493); ` +
  'with 400/4009 when its id is stored with another name or tag; and with 413/4130 when it is ' +
  'larger than the configured limit.';

/**
 * The served OpenAPI document: the seed interface (same path, operation and schemas) plus every
 * other status the service answers. Built from the TypeBox schemas the route validates with; the
 * one translation is the id, a bigint after lossless parsing, which is an int64 integer on the wire.
 */
export function openApiDocument(serverUrl: string): Record<string, unknown> {
  const errorResponse = ({ description, errors, headers }: ErrorResponse<ErrorKind>) => ({
    description,
    ...(headers === undefined ? {} : { headers }),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: Object.fromEntries(
          errors.map((kind) => [
            kind,
            { summary: ERRORS[kind].when, value: { error: ERRORS[kind].error, message: '…' } },
          ]),
        ),
      },
    },
  });
  const plants = {
    post: {
      summary: 'Creates a new plant in the store',
      operationId: 'addPlant',
      description:
        'Every answer other than 200 is an Error; the examples of each status name its ' +
        '`error` values. Any other method on /plants answers 405/4050, before authentication, ' +
        'with `Allow` naming the methods it allows (#/components/responses/MethodNotAllowed); ' +
        'a path that does not exist answers 404/4040 in the same shape. ' +
        'The Kafka contract behind this operation is served at /asyncapi.json.',
      requestBody: {
        description: 'Plant to add to the store',
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
      },
      responses: {
        '200': {
          description: 'plant response',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Plant' } } },
        },
        ...Object.fromEntries(
          Object.entries(RESPONSES).map(([status, response]) => [status, errorResponse(response)]),
        ),
      },
    },
  };
  const allowedOnPlants = Object.keys(plants)
    .map((method) => method.toUpperCase())
    .join(', ');
  return {
    openapi: '3.0.3',
    info: {
      title: 'Plant Store',
      description: 'A service that keeps a store of plants. One operation, which creates a plant.',
      version: '1.0.0',
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    servers: [{ url: serverUrl }],
    security: [{ bearerAuth: [] }],
    paths: { '/plants': plants },
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } },
      responses: { MethodNotAllowed: errorResponse(methodNotAllowed(allowedOnPlants)) },
      schemas: {
        Plant,
        NewPlant: {
          description: NEW_PLANT_REFUSALS,
          allOf: [
            { $ref: '#/components/schemas/Plant' },
            {
              type: 'object',
              required: ['id'],
              properties: { id: { ...NewPlant.properties.id, ...INT64_ON_THE_WIRE } },
            },
          ],
        },
        Error: ErrorBody,
      },
    },
  };
}
