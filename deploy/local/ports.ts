import { createServer } from 'node:net';

export const LOOPBACK = '127.0.0.1';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}

export class PortInUseError extends Error {
  constructor(port: number, hint: string) {
    super(`${LOOPBACK}:${port} is already in use. ${hint}`);
    this.name = 'PortInUseError';
  }
}

export function assertPortFree(port: number, hint: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', () => {
      reject(new PortInUseError(port, hint));
    });
    server.listen(port, LOOPBACK, () => {
      server.close(() => {
        resolve();
      });
    });
  });
}
