import { ManagedProcess } from '../../managed-process.ts';
import { siblingFile, type ContainerRunner } from './runner.ts';

/** Serves a fixed body (with status and headers) on the Pod's address: the stand-in for simple web images. */
export const httpStaticRunner: ContainerRunner = (ctx) => {
  const port = Number(ctx.settings.port ?? ctx.container.ports?.[0]?.containerPort ?? 8080);
  const config = { host: ctx.podIP, port, status: Number(ctx.settings.status ?? 200), body: typeof ctx.settings.body === 'string' ? ctx.settings.body : '', headers: ctx.settings.headers ?? {} };
  return Promise.resolve({
    process: ManagedProcess.start({
      name: ctx.container.name, command: process.execPath, args: [siblingFile(import.meta.url, 'http-static-server')],
      env: { ...ctx.env, TESTKIT_HTTP_STATIC: JSON.stringify(config) }, cwd: ctx.containerDir, logFile: ctx.logFile,
    }),
  });
};
