// `npm run sandbox`: runs the sandbox ad platform on SANDBOX_PORT (default 8090) and prints its URL.
import { startSandbox, type Sandbox } from './server.ts';

/** Plain digits 0-65535, as the service reads PORT: Number() would take "0x10", "1e3" and "" (port 0) for ports. */
function portOf(text: string | undefined): number {
  if (text === undefined) return 8090;
  const port = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new Error(`SANDBOX_PORT=${JSON.stringify(text)} is not valid: expected a whole number from 0 to 65535`);
  return port;
}

/** What went wrong, in one line: a port in use or refused is named with the variable that chose it. */
function startProblem(error: unknown, port: string | undefined, host: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return `port ${port} on ${host} is in use (SANDBOX_PORT): another process listens on it`;
  if (code === 'EACCES') return `port ${port} on ${host} is not allowed for this user (SANDBOX_PORT)`;
  return (error as Error).message ?? String(error);
}

// A bad setting or a port in use ends the start with one line and exit code 1, as `npm start` does (README).
const host = process.env.SANDBOX_HOST ?? '127.0.0.1';
let sandbox: Sandbox;
try {
  sandbox = await startSandbox({ port: portOf(process.env.SANDBOX_PORT), host });
} catch (error) {
  process.stderr.write(`cannot start: ${startProblem(error, process.env.SANDBOX_PORT ?? '8090', host)}\n`);
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
