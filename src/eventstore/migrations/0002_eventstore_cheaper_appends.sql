-- Cheaper appends. The global order (transaction id, row position) becomes the primary key, replacing
-- a separate key on the row position; ids and stream names compare byte by byte (COLLATE "C"), which
-- is all their indexes need and much cheaper than a locale's rules.
ALTER TABLE es_events DROP CONSTRAINT es_events_pkey;
DROP INDEX IF EXISTS es_events_order;
ALTER TABLE es_events ADD CONSTRAINT es_events_pkey PRIMARY KEY (transaction_id, global_position);
ALTER TABLE es_events ALTER COLUMN event_id TYPE text COLLATE "C", ALTER COLUMN stream_id TYPE text COLLATE "C";
ALTER TABLE es_streams ALTER COLUMN stream_id TYPE text COLLATE "C";
