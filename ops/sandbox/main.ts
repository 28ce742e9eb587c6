// `npm run sandbox`: runs the sandbox ad platform on SANDBOX_PORT (default 8090) and prints its URL.
import { Env } from '../../src/config.ts';
import { listenProblem } from '../../src/listen-problem.ts';
import { startSandbox, type Sandbox } from './server.ts';

// A bad setting or a port in use ends the start with one line and exit code 1, as `npm start` does (README).
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
let sandbox: Sandbox;
try {
  sandbox = await startSandbox({ port: new Env(process.env).integer('SANDBOX_PORT', 8090, 0, 65535), host });
} catch (error) {
  process.stderr.write(`cannot start: ${listenProblem(error, `${process.env.SANDBOX_PORT ?? '8090'} on ${host}`, 'SANDBOX_PORT')}\n`);
  process.exit(1);
}
const shutdown = (): void => {
  sandbox.stop().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
// Before the URL is printed: whoever reads it may stop the sandbox at once, and is owed an orderly stop.
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);
console.log(`sandbox platform listening on ${sandbox.url}`);
console.log(`point the service at it: PLATFORM_API_URL=${sandbox.url}; control it under ${sandbox.url}/__sandbox/...`);
