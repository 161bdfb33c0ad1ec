import { createServer, type Server } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { assertPortFree, freePort, LOOPBACK, PortInUseError } from '#local/provision/ports.ts';

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      resolve();
    });
  });
}

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(port, LOOPBACK, () => {
      resolve(server);
    });
  });
}

describe('Ports for local servers', () => {
  it('When a free port is asked for, then it lies below every default ephemeral range and can be bound', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));

    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(32_768);
    }
    const server = await listenOn(ports[0] ?? 0);
    onTestFinished(() => close(server));
    expect(server.address()).toMatchObject({ port: ports[0] });
  });

  it('When a port was handed out already or no port of the range is free, then it is not handed out again and the error names the range', async () => {
    const port = await freePort();
    const taken = await listenOn(await freePort());
    onTestFinished(() => close(taken));
    const takenPort = (taken.address() as { port: number }).port;

    await expect(freePort({ from: port, to: port })).rejects.toThrow(
      `no free port on ${LOOPBACK} in ${String(port)}–${String(port)} after 50 tries`,
    );
    await expect(freePort({ from: takenPort, to: takenPort })).rejects.toThrow('after 50 tries');
  });

  it('When a port is taken, then assertPortFree names it and the hint', async () => {
    const port = await freePort();
    const server = await listenOn(port);
    onTestFinished(() => close(server));

    const refusal = assertPortFree(port, 'Stop the other stack.');

    await expect(refusal).rejects.toBeInstanceOf(PortInUseError);
    await expect(refusal).rejects.toThrow(
      `${LOOPBACK}:${port} is already in use. Stop the other stack.`,
    );
  });
});
