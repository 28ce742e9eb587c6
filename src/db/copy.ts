// COPY ... FROM STDIN in PostgreSQL's text format: the bulk load path, several times cheaper per row than
// INSERT ... SELECT FROM unnest($arrays) (no array literals to build in JavaScript or parse in the server).
import pg from 'pg';
import type { Client } from './pool.ts';

export type CopyValue = string | number | boolean | null;

/** One field in COPY's text format: \N for null; backslash, tab, newline and carriage return escaped. */
export function copyField(value: CopyValue): string {
  if (value === null) return '\\N';
  if (typeof value !== 'string') return String(value);
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c] as string) : value;
}

/** Rows of COPY's text format, fields already passed through copyField. */
export const copyLine = (fields: CopyValue[]): string => `${fields.map(copyField).join('\t')}\n`;

/** Data sent per CopyData message. */
const MESSAGE_BYTES = 1 << 20;

/**
 * Runs `COPY table (columns) FROM STDIN` with the given text-format data. pg has no public COPY API; its
 * Query calls handleCopyInResponse when the server is ready for data (pg-copy-streams relies on the same).
 */
export function copyFrom(client: Client, statement: string, data: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query(statement, undefined, (error?: Error | null) => (error ? reject(error) : resolve()));
    const target = query as unknown as { handleCopyInResponse(connection: { sendCopyFromChunk(b: Buffer): void; endCopyFrom(): void }): void };
    target.handleCopyInResponse = (connection) => {
      const bytes = Buffer.from(data);
      for (let at = 0; at < bytes.length; at += MESSAGE_BYTES) connection.sendCopyFromChunk(bytes.subarray(at, at + MESSAGE_BYTES));
      connection.endCopyFrom();
    };
    void client.query(query);
  });
}
