import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { createLogger } from '../../src/logger.ts';

function linesOf(write: (log: ReturnType<typeof createLogger>) => void): { level: string; msg: string }[] {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  write(createLogger('info', {}, out));
  return chunks.join('').trim().split('\n').map((line) => JSON.parse(line));
}

test('a database shutdown failing work in flight is information; other failures stay errors', () => {
  const shutdown = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
  const lines = linesOf((log) => {
    log.error('batch failed', { error: shutdown });
    log.error('batch failed', { error: refused });
    log.warn('read failed', { error: shutdown });
    log.debug('hidden', { error: shutdown });
  });
  assert.equal(lines.map((l) => l.level), ['info', 'error', 'info']);
});

test.run();
