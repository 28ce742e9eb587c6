// Why a server could not listen, in the one line a start ends with (`cannot start: ...`): a port in use or
// refused is named with the variable that chose it.

/** `port` as the line shows it ("8080", or "8090 on 127.0.0.1"); `variable` the setting that chose it. */
export function listenProblem(error: unknown, port: string, variable: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') return `port ${port} is in use (${variable}): another process listens on it`;
  if (code === 'EACCES') return `port ${port} is not allowed for this user (${variable})`;
  return (error as Error).message ?? String(error);
}
