import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { mismatches } from '../support/checks/document-schemas.ts';
import { attachGateway, BODY_LIMIT_BYTES, startTestGateway } from '../support/servers/gateway.ts';

interface DeclaredResponse {
  headers?: Record<string, { required?: boolean; schema: object }>;
  content: {
    'application/json': {
      schema: object;
      examples?: Record<string, { value: { error: number } }>;
    };
  };
}

/** The parts of the served OpenAPI document this test reads. */
interface OpenApi {
  components: { responses: { MethodNotAllowed: DeclaredResponse } };
  paths: { '/plants': { post: { responses: Record<string, DeclaredResponse | undefined> } } };
}

/** Every answer other than 200, on any path, is an Error (the operation's description says so). */
const ANY_ROUTE: DeclaredResponse = {
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};

/** Where an answer departs from what the document declares for its status; empty when it conforms. */
function departures(
  document: OpenApi,
  answer: LightMyRequestResponse,
  declared: DeclaredResponse | undefined,
): string[] {
  if (declared === undefined) return [`${String(answer.statusCode)} is not in the document`];
  const { schema, examples } = declared.content['application/json'];
  const body: unknown = answer.json();
  const codes = Object.values(examples ?? {}).map(({ value }) => value.error);
  const error = (body as { error?: unknown }).error;
  return [
    ...(String(answer.headers['content-type']).startsWith('application/json')
      ? []
      : [`content-type ${String(answer.headers['content-type'])}`]),
    ...mismatches(document, schema, body).map((why) => `body ${why}`),
    ...(codes.length === 0 || codes.includes(error as number)
      ? []
      : [`error ${String(error)} is not among those listed for it: ${codes.join(', ')}`]),
    ...Object.entries(declared.headers ?? {}).flatMap(([name, { required, schema: header }]) => {
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) return required === true ? [`header ${name} is missing`] : [];
      return mismatches(document, header, value).map((why) => `header ${name} ${why}`);
    }),
  ];
}

const plant = (id: number, name: string) => JSON.stringify({ id, name });

describe('Answers of POST /plants against the served OpenAPI document', () => {
  it('When a real 200, 400 (4000, 4001, 4009), 401, 404, 405, 413, 415, 429, 503 and 504 are provoked, then each body, error code and header is what the document declares for its status', async () => {
    const harness = await startTestGateway();
    const rateLimited = await attachGateway(harness, { rateLimitPerMinute: 1 });
    const full = await attachGateway(harness, { maxInFlight: 0 });
    const unanswered = await startTestGateway({ writer: false, replyTimeoutMs: 200 });
    const document = (
      await harness.request({ method: 'GET', url: '/openapi.json' })
    ).json<OpenApi>();
    const { responses } = document.paths['/plants'].post;
    // What no operation answers: a path that does not exist, a method /plants does not allow.
    const outsideOperations: Record<number, DeclaredResponse> = {
      404: ANY_ROUTE,
      405: document.components.responses.MethodNotAllowed,
    };
    const cases: [string, number, () => Promise<LightMyRequestResponse>][] = [
      ['created', 200, () => harness.post(plant(1, 'Fern'))],
      ['conflicting', 400, () => harness.post(plant(1, 'Moss'))],
      ['not a NewPlant', 400, () => harness.post('{"id": "2", "name": "Fern"}')],
      ['not JSON', 400, () => harness.post('{"id": 2,')],
      [
        'no token',
        401,
        () =>
          harness.request({
            method: 'POST',
            url: '/plants',
            headers: { 'content-type': 'application/json' },
            payload: plant(3, 'Fern'),
          }),
      ],
      ['unknown token', 401, () => harness.post(plant(3, 'Fern'), { authorization: 'Bearer x' })],
      ['no such route', 404, () => harness.request({ method: 'GET', url: '/nope' })],
      ['another method', 405, () => harness.request({ method: 'GET', url: '/plants' })],
      [
        'another method with a bad token and a body',
        405,
        () =>
          harness.request({
            method: 'PUT',
            url: '/plants',
            headers: { authorization: 'Bearer x', 'content-type': 'application/json' },
            payload: plant(3, 'Fern'),
          }),
      ],
      ['too large', 413, () => harness.post(plant(4, 'x'.repeat(BODY_LIMIT_BYTES)))],
      [
        'not JSON media',
        415,
        () => harness.post(plant(5, 'Fern'), { 'content-type': 'text/plain' }),
      ],
      ['first create this minute', 200, () => rateLimited.post(plant(6, 'Fern'))],
      ['second create this minute', 429, () => rateLimited.post(plant(7, 'Fern'))],
      ['too many waiting', 503, () => full.post(plant(8, 'Fern'))],
      ['no writer', 504, () => unanswered.post(plant(9, 'Fern'))],
    ];

    const answers: { name: string; status: number; departures: string[] }[] = [];
    for (const [name, , send] of cases) {
      const answer = await send();
      const declared = outsideOperations[answer.statusCode] ?? responses[String(answer.statusCode)];
      answers.push({
        name,
        status: answer.statusCode,
        departures: departures(document, answer, declared),
      });
    }

    expect(answers).toEqual(cases.map(([name, status]) => ({ name, status, departures: [] })));
  });
});
