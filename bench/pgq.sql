-- PgQ (Debian package postgresql-15-pgq3), for the operations it has: it
-- queues events (pgq.insert_event) for consumers that read them in batches
-- between ticks; it has no competing consumers that each take one event and
-- complete it, so it has no pick scenario here.
-- Sections as in floor.sql (split by bench/driver.py).

-- @setup
CREATE EXTENSION pgq;

-- @reset
-- A fresh queue holding the same backlog as the other systems (events).
SELECT pgq.drop_queue(queue_name) FROM pgq.queue WHERE queue_name = 'bq';
SELECT 1 FROM pgq.create_queue('bq');
SELECT count(pgq.insert_event('bq', 'doc', '{"bench": 1}', 'b' || g, NULL, NULL, NULL))
FROM generate_series(1, :backlog) AS g;

-- @counts
-- Events are neither pending nor completed: only the total is comparable.
SELECT 0, 0, 0, count(*) FROM pgq.event_template;

-- @push_1
\set s random(1, 9000000000000000000)
SELECT pgq.insert_event('bq', 'doc', '{"bench": 1}', :s, NULL, NULL, NULL);

-- @push_100
\set s random(1, 9000000000000000000)
SELECT count(pgq.insert_event('bq', 'doc', '{"bench": 1}', :s || '_' || g, NULL, NULL, NULL))
FROM generate_series(1, 100) AS g;
