// Small node:http helpers for the sandbox: bodies, JSON answers, Graph cursors and `fields` projection.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphErrorAnswer } from './graph-errors.ts';

export type GetAnswer = GraphErrorAnswer | { status: 200; body: unknown };

export interface GetRequest {
  /** Path segments after the version: ['123'] or ['123', 'leads']. */
  segments: string[];
  url: URL;
  /** Base of `next` links (scheme, host and port the caller used). */
  base: string;
  token: string;
}

const MAX_BODY = 32 * 1024 * 1024;

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** A JSON body or a form body (the platform takes both), as a flat record of fields. */
export function parseParams(text: string, contentType: string | undefined): Record<string, unknown> | null {
  if (text.trim() === '') return {};
  if ((contentType ?? '').includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function sendError(res: ServerResponse, answer: GraphErrorAnswer): void {
  sendJson(res, answer.status, answer.body);
}

export function sendText(res: ServerResponse, status: number, text: string, contentType: string): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Graph cursors are opaque strings; the sandbox's carry a position. */
export function encodeCursor(position: number): string {
  return Buffer.from(`pos:${position}`).toString('base64url');
}

export function decodeCursor(cursor: string | null): number | null {
  if (cursor === null || cursor === '') return 0;
  const match = /^pos:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}

/** Page size as the platform reads it: default 25, capped. */
export function pageLimit(raw: string | null, max: number): number {
  const n = raw === null ? 25 : Number.parseInt(raw, 10);
  return Number.isFinite(n) && n > 0 ? Math.min(n, max) : 25;
}

export interface Paged<T> {
  data: T[];
  paging: { cursors: { before: string; after: string }; next?: string };
}

/** One page of `items` from a cursor, with `next` built on the request's own URL like the platform does. */
export function pageOf<T>(items: T[], url: URL, start: number, limit: number, more: boolean, base: string): Paged<T> {
  const paging: Paged<T>['paging'] = { cursors: { before: encodeCursor(start), after: encodeCursor(start + items.length) } };
  if (more) {
    const next = new URL(url.pathname + url.search, base);
    next.searchParams.set('after', paging.cursors.after);
    paging.next = next.toString();
  }
  return { data: items, paging };
}

/** Field list of a Graph `fields` parameter: "id,creative{id,title}" -> { id: null, creative: 'id,title' }. */
export function parseFields(raw: string | null): Map<string, string | null> | null {
  if (raw === null || raw.trim() === '') return null;
  const fields = new Map<string, string | null>();
  let depth = 0;
  let start = 0;
  const take = (end: number) => {
    const part = raw.slice(start, end).trim();
    if (part === '') return;
    const brace = part.indexOf('{');
    if (brace < 0) fields.set(part, null);
    else fields.set(part.slice(0, brace), part.slice(brace + 1, part.lastIndexOf('}')));
  };
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === '{') depth++;
    else if (raw[i] === '}') depth--;
    else if (raw[i] === ',' && depth === 0) {
      take(i);
      start = i + 1;
    }
  }
  take(raw.length);
  return fields;
}

/** Keeps the asked-for fields (and id, which the platform always returns); no `fields` keeps everything. */
export function project(obj: Record<string, unknown>, fields: Map<string, string | null> | null): Record<string, unknown> {
  if (fields === null) return obj;
  const out: Record<string, unknown> = {};
  if ('id' in obj) out.id = obj.id;
  for (const [name] of fields) if (name in obj && obj[name] !== undefined) out[name] = obj[name];
  return out;
}
