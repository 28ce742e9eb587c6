-- Gives back the revision of streams that have events but no es_streams row. A group commit (POST /events)
-- whose member was crowded out of a stream the member before it won gave that stream's claim back with its
-- own (fixed in postgres-group.ts): the winner's events stayed, its revision went, and every later append
-- to the stream failed on the (stream_id, stream_revision) key, a repeated conversion answering 500.
INSERT INTO es_streams (stream_id, revision)
SELECT e.stream_id, max(e.stream_revision) FROM es_events e
WHERE NOT EXISTS (SELECT 1 FROM es_streams s WHERE s.stream_id = e.stream_id)
GROUP BY e.stream_id
ON CONFLICT (stream_id) DO NOTHING;
