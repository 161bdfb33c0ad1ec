import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { projectRoot } from '#local/provision/paths.ts';
import { ERRORS } from '#shared/contracts/errors.ts';
import { startTestGateway } from '../support/servers/gateway.ts';

/** Every key of `seed` is in `served` with the same value; `served` may add keys. */
function missingFrom(served: unknown, seed: unknown, path = '#'): string[] {
  if (typeof seed !== 'object' || seed === null)
    return served === seed ? [] : [`${path}: ${JSON.stringify(served)} ≠ ${JSON.stringify(seed)}`];
  if (typeof served !== 'object' || served === null) return [`${path} missing`];
  if (Array.isArray(seed)) {
    return Array.isArray(served) &&
      seed.every((item) => served.some((candidate) => missingFrom(candidate, item).length === 0))
      ? []
      : [`${path}: ${JSON.stringify(served)} lacks items of ${JSON.stringify(seed)}`];
  }
  return Object.entries(seed).flatMap(([key, value]) =>
    missingFrom((served as Record<string, unknown>)[key], value, `${path}/${key}`),
  );
}

describe('GET /openapi.json', () => {
  it('When fetched without a token, then it is a superset of the seed interface listing every status with its error codes', async () => {
    const gateway = await startTestGateway({ writer: false });
    const seed: unknown = parse(
      await readFile(join(projectRoot, 'docs', 'openapi.seed.yaml'), 'utf8'),
    );

    const response = await gateway.request({ method: 'GET', url: '/openapi.json' });

    expect(response.statusCode).toBe(200);
    interface Response {
      content: {
        'application/json': { examples?: Record<string, { value: { error: number } }> };
      };
      headers?: Record<string, object>;
    }
    const served = response.json<{
      servers: unknown;
      paths: { '/plants': { post: { responses: Record<string, Response> } } };
      components: { responses: { MethodNotAllowed: Response } };
    }>();
    expect(
      missingFrom({ ...served, servers: undefined }, { ...(seed as object), servers: undefined }),
    ).toEqual([]);
    expect(Object.keys(served.paths['/plants'].post.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '408',
      '413',
      '415',
      '417',
      '429',
      '431',
      '500',
      '503',
      '504',
    ]);
    const { responses } = served.paths['/plants'].post;
    const { MethodNotAllowed } = served.components.responses;
    // Every error of the service but 404/4040, which no route of the document answers; 405/4050
    // as the reusable answer to the methods /plants does not allow.
    const listed = Object.entries({ ...responses, '405': MethodNotAllowed }).flatMap(
      ([status, { content }]) =>
        Object.values(content['application/json'].examples ?? {}).map(
          ({ value }) => `${status}/${String(value.error)}`,
        ),
    );
    expect(listed.sort()).toEqual(
      Object.values(ERRORS)
        .filter(({ status }) => status !== 404)
        .map(({ status, error }) => `${String(status)}/${String(error)}`)
        .sort(),
    );
    expect(
      Object.fromEntries(
        Object.entries(responses).flatMap(([status, { headers }]) =>
          headers === undefined ? [] : [[status, Object.keys(headers)]],
        ),
      ),
    ).toEqual({ '401': ['WWW-Authenticate'], '429': ['Retry-After'], '503': ['Retry-After'] });
    expect(MethodNotAllowed.headers).toEqual({
      Allow: expect.objectContaining({
        required: true,
        schema: { type: 'string', enum: ['POST'] },
      }) as object,
    });
  });
});
