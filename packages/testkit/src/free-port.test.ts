import { createServer } from 'node:net';
import { expect, test } from 'vitest';
import { freePorts } from './free-port.ts';

test('freePorts gives distinct ports, each free to bind once it returns', async () => {
  const ports = await freePorts(50);
  expect(new Set(ports).size).toBe(50);
  for (const port of ports) {
    await new Promise<void>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => { server.close(() => { resolve(); }); });
    });
  }
});
