-- Every append rewrites its stream's row: room on each page lets PostgreSQL update it in place (a HOT
-- update, no new index entry).
ALTER TABLE es_streams SET (fillfactor = 70);
