// `ops streams list | read STREAM | tail [--follow]`: look into the event store.
import { START, type RecordedEvent } from '../src/eventstore/port.ts';
import { ApiError } from '../commands/shared/errors.ts';
import { positional, positiveInteger, type CliContext, type CommandGroup } from './context.ts';

function show(e: RecordedEvent) {
  return {
    id: e.id, type: e.type, stream: e.stream, revision: e.revision.toString(),
    position: `${e.position.commit}/${e.position.prepare}`, created_at: e.createdAt, metadata: e.metadata, data: e.data,
  };
}

const line = (e: RecordedEvent) => `${e.createdAt}  ${e.stream}@${e.revision}  ${e.type}  ${JSON.stringify(e.data)}`;

const limitOf = (ctx: CliContext, fallback: number): number => (ctx.options.limit === undefined ? fallback : positiveInteger(ctx.options.limit, '--limit'));

export const streamCommands: CommandGroup = {
  list: {
    usage: 'streams list [--prefix P] [--limit N]',
    async run(ctx) {
      const streams = await ctx.services.store.listStreams({ prefix: ctx.options.prefix, limit: limitOf(ctx, 1000) });
      for (const s of streams) ctx.print(`${s.stream}  (${s.revision + 1n} events)`);
      return streams.map((s) => ({ stream: s.stream, revision: s.revision.toString() }));
    },
  },
  read: {
    usage: 'streams read STREAM [--backwards] [--limit N]',
    async run(ctx) {
      const stream = positional(ctx, 0, 'stream name');
      const events = await ctx.services.store.readStream(stream, {
        direction: ctx.options.backwards === 'true' ? 'backwards' : 'forwards', maxCount: limitOf(ctx, 1000),
      });
      // A stream exists once it has an event: an empty read is a name that is not there (a typo), as with an unknown id.
      if (events.length === 0) throw new ApiError('not_found', { stream }, 'no such stream');
      for (const e of events) ctx.print(line(e));
      return events.map(show);
    },
  },
  tail: {
    usage: 'streams tail [--limit N] [--follow]',
    async run(ctx) {
      const { store } = ctx.services;
      const limit = limitOf(ctx, 20);
      // The last N events: walk forwards from the start keeping a window (the store reads forwards only).
      let after = START;
      let window: RecordedEvent[] = [];
      for (;;) {
        const batch = await store.readAll({ after, maxCount: 5000 });
        if (batch.length === 0) break;
        window = [...window, ...batch].slice(-limit);
        after = batch[batch.length - 1].position;
      }
      for (const e of window) ctx.print(line(e));
      if (ctx.options.follow !== 'true' || ctx.json) return window.map(show);
      const subscription = store.subscribeToAll({ after, onBatch: async (events) => { for (const e of events) ctx.print(line(e)); } });
      await new Promise<void>((resolve) => process.once('SIGINT', resolve));
      await subscription.stop();
      return null;
    },
  },
};
