-- Paused by the sender (after the failures in a row), not by the caller: last_error then keeps the pause's reason,
-- also against attempts of claims that ran beside the one that reached the count and were recorded after the pause.
ALTER TABLE webhooks ADD COLUMN auto_paused boolean NOT NULL DEFAULT false;
