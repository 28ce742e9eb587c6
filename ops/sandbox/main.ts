// `npm run sandbox`: runs the sandbox ad platform on SANDBOX_PORT (default 8090) and prints its URL.
import { startSandbox } from './server.ts';

const port = Number(process.env.SANDBOX_PORT ?? 8090);
const sandbox = await startSandbox({ port, host: process.env.SANDBOX_HOST ?? '127.0.0.1' });
console.log(`sandbox platform listening on ${sandbox.url}`);
console.log(`point the service at it: PLATFORM_API_URL=${sandbox.url}; control it under ${sandbox.url}/__sandbox/...`);

const shutdown = (): void => {
  sandbox.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
