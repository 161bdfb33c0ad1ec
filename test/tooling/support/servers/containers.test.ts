import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containerRuntimeAnswers } from '#test/support/servers/containers.ts';
import { temporaryDirectory } from '#test/support/servers/local-servers.ts';

describe('Container runtime detection', () => {
  it('When the Docker socket accepts connections but never answers, then detection answers false', async () => {
    const socketPath = join(await temporaryDirectory(), 'docker.sock');
    const open = new Set<Socket>();
    const hungDaemon = createServer((socket) => open.add(socket)).listen(socketPath);
    const env = { ...process.env };
    process.env.DOCKER_HOST = `unix://${socketPath}`;
    try {
      expect(await containerRuntimeAnswers(100)).toBe(false);
    } finally {
      process.env = env;
      for (const socket of open) socket.destroy();
      hungDaemon.close();
    }
  });
});
