import { request } from 'node:http';
import { TOKEN } from '../servers/gateway.ts';

export type Answer =
  | { status: number; headers: Record<string, string | string[] | undefined>; body: string }
  | { error: string };

/** One POST /plants on a connection of its own (no keep-alive), as a load generator would. */
export function postPlant(url: string, body: string): Promise<Answer> {
  return new Promise((resolve) => {
    const outgoing = request(
      `${url}/plants`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString(),
          });
        });
        response.on('error', (error: NodeJS.ErrnoException) => {
          resolve({ error: error.code ?? error.message });
        });
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      resolve({ error: error.code ?? error.message });
    });
    outgoing.end(body);
  });
}

/** A POST /plants whose client hangs up when told; `hangUp` resolves with fetch's error name. */
export function abandonedPost(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): { hangUp: () => Promise<string> } {
  const controller = new AbortController();
  const settled = fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body,
    signal: controller.signal,
  }).then(
    () => 'answered',
    (error: unknown) => (error as Error).name,
  );
  return {
    hangUp: () => {
      controller.abort();
      return settled;
    },
  };
}
