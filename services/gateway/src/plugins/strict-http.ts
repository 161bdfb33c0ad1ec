import fp from 'fastify-plugin';
import { contentLengthOf, readBody } from '../http/body-reader.ts';
import {
  contentTypeProblem,
  refuseConnect,
  refuseExpectation,
  requireOneHost,
} from '../http/malformed-http.ts';

/**
 * What Node and Fastify would let through or answer in their own shape: CONNECT, an Expect other
 * than 100-continue, a Host header missing or twice, a Content-Type twice or not in UTF-8. Bodies
 * are read as bytes (`body-reader.ts`) and parsed losslessly by the same decoder the writer uses,
 * not by Fastify's JSON.parse.
 */
export const strictHttp = fp(
  (app, _options, done) => {
    app.server.on('connect', refuseConnect);
    app.server.on('checkExpectation', refuseExpectation);
    app.addHook('onRequest', requireOneHost);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('application/json', (request, payload, parsed) => {
      const { bodyLimit } = request.routeOptions;
      readBody(payload, contentLengthOf(request.headers['content-length']), bodyLimit).then(
        (body) => {
          parsed(contentTypeProblem(request.raw) ?? null, body);
        },
        (error: unknown) => {
          parsed(error as Error, undefined);
        },
      );
    });
    done();
  },
  { name: 'strict-http' },
);
