// JSON-lines logger that carries scope fields (request id, organisation, projector) into every line.
export type Level = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(level: Level | 'silent' = 'info', scope: Record<string, unknown> = {}, out: NodeJS.WritableStream = process.stdout): Logger {
  const min = RANK[level];
  const write = (asked: Level, msg: string, fields?: Record<string, unknown>) => {
    const lvl = isDatabaseShutdown(fields?.error) && RANK[asked] > RANK.info ? 'info' : asked;
    if (RANK[lvl] < min) return;
    const line = { time: new Date().toISOString(), level: lvl, msg, ...scope, ...fields };
    out.write(JSON.stringify(line, (_k, v) => (typeof v === 'bigint' ? v.toString() : v instanceof Error ? { message: v.message, stack: v.stack } : v)) + '\n');
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(level, { ...scope, ...fields }, out),
  };
}

/**
 * The database stopping (an operator's stop, or Ctrl-C reaching it with us) fails whatever was in flight; that is
 * expected, not a fault of the service: such lines are information. A database that does not come back shows as
 * connection errors.
 */
function isDatabaseShutdown(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return code === '57P01' || code === '57P02' || code === '57P03';
}
