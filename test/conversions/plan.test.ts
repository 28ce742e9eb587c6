// The append a conversion makes: its own stream first, then its delivery reservations in stream-name order, so that
// two conversions of one event_id (from sources whose flows list the datasets in different orders) claim them alike.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { appendRequests } from '../../commands/conversion/plan.ts';
import type { AcceptDecision } from '../../commands/conversion/decide.ts';

const reservation = (stream: string) => ({ stream, event: { type: 'DeliveryReserved', data: { stream } } }) as unknown as AcceptDecision['reservations'][number];

test('reservations are appended in stream-name order, whatever order the flows gave them', () => {
  const decision = { events: [], reservations: ['deliverykey-c', 'deliverykey-a', 'deliverykey-b'].map(reservation), result: {} } as unknown as AcceptDecision;
  const streams = appendRequests('conversion-1', decision).map((r) => r.stream);
  assert.equal(streams, ['conversion-1', 'deliverykey-a', 'deliverykey-b', 'deliverykey-c']);
  assert.equal(decision.reservations.map((r) => r.stream), ['deliverykey-c', 'deliverykey-a', 'deliverykey-b'], 'the decision itself is left as it was');
});

test.run();
