// The process behind the http-static runner: answers every request with the configured status, headers and
// body, and stops on SIGTERM like a well-behaved container.
import { createServer } from 'node:http';

interface StaticConfig {
  host: string;
  port: number;
  status: number;
  body: string;
  headers: Record<string, string>;
}

const config = JSON.parse(process.env.TESTKIT_HTTP_STATIC ?? '{}') as StaticConfig;
const server = createServer((_req, res) => {
  res.writeHead(config.status, { 'content-type': 'text/plain; charset=utf-8', ...config.headers });
  res.end(config.body);
});
server.listen(config.port, config.host, () => {
  console.log(`http-static listening on ${config.host}:${config.port}`);
});
process.once('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
