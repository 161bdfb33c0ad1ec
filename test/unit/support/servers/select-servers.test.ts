import { describe, expect, it, vi } from 'vitest';
import { selectServers, type ServerSources } from '#test/support/servers/select-servers.ts';
import type { TestServers } from '#test/support/servers/test-servers.ts';

function servers(source: string): TestServers {
  return {
    kafkaBrokers: `${source}:9092`,
    mongoUri: `mongodb://${source}`,
    source,
    logDir: null,
    stop: async () => {},
  };
}

function sources(runtimeAnswers: boolean) {
  const containerRuntimeAnswers = vi.fn(() => Promise.resolve(runtimeAnswers));
  const startContainers = vi.fn(() => Promise.resolve(servers('containers')));
  const startLocal = vi.fn(() => Promise.resolve(servers('local')));
  const available: ServerSources = { containerRuntimeAnswers, startContainers, startLocal };
  return { available, containerRuntimeAnswers, startContainers, startLocal };
}

describe('Server selection for tests', () => {
  it('When KAFKA_BROKERS and MONGODB_URI are set, then those servers are used and nothing is started', async () => {
    const { available, containerRuntimeAnswers, startLocal } = sources(true);

    const selected = await selectServers(
      { KAFKA_BROKERS: 'k:1', MONGODB_URI: 'mongodb://m:2' },
      available,
    );

    expect(selected).toMatchObject({ kafkaBrokers: 'k:1', mongoUri: 'mongodb://m:2' });
    expect(containerRuntimeAnswers).not.toHaveBeenCalled();
    expect(startLocal).not.toHaveBeenCalled();
  });

  it('When only one of KAFKA_BROKERS and MONGODB_URI is set, then it refuses with a clear message', async () => {
    await expect(selectServers({ KAFKA_BROKERS: 'k:1' }, sources(true).available)).rejects.toThrow(
      'Set both KAFKA_BROKERS and MONGODB_URI',
    );
  });

  it('When a container runtime answers, then testcontainers provides the servers', async () => {
    const { available, startLocal } = sources(true);

    expect((await selectServers({}, available)).source).toBe('containers');
    expect(startLocal).not.toHaveBeenCalled();
  });

  it('When no container runtime answers, then local processes provide the servers', async () => {
    const { available, startContainers } = sources(false);

    expect((await selectServers({}, available)).source).toBe('local');
    expect(startContainers).not.toHaveBeenCalled();
  });
});
