import { describe, expect, it } from 'vitest';
import { groupOf } from '#bench/probes/profile-groups.ts';

describe('groupOf', () => {
  it.each([
    ['services/gateway/src/create-plant.ts', 'project'],
    ['shared/batching/arrival-linger.ts', 'project'],
    ['fastify', 'fastify & Node HTTP'],
    ['@fastify/auth', 'fastify & Node HTTP'],
    ['find-my-way', 'fastify & Node HTTP'],
    ['node:_http_server', 'fastify & Node HTTP'],
    ['node:internal/http', 'fastify & Node HTTP'],
    ['kafkajs', 'kafkajs'],
    ['sonic-boom', 'pino'],
    ['prom-client', 'prom-client'],
    ['bson', 'store driver'],
    ['@mongodb-js/saslprep', 'store driver'],
    ['@opentelemetry/api', 'OpenTelemetry'],
    ['typebox', 'other packages'],
    ['node:net', 'Node core'],
    ['node:internal/buffer', 'Node core'],
    ['(native)', 'native'],
    ['(garbage collector)', 'GC'],
    ['(program)', 'V8 unattributed'],
  ])('When the area is %s, then its group is %s', (area, group) => {
    expect(groupOf(area)).toBe(group);
  });
});
