-- Periodic schedules (schedule_create, ...): the scheduler pushes a document
-- into `queue` at each tick, as `owner`, exactly once per tick: the
-- document's subject is made from `subject` and the tick, so a tick pushed
-- twice is deduplicated by the queue's unique subject, and next_at moves in
-- the transaction of the push. A tick is either a cron expression (`cron`,
-- read in `timezone`) or an interval (`every`). Only the table's owner (the
-- role that created the extension) reads or writes it (row security with no
-- policy); the view fetchq.schedules shows each role the schedules of the
-- queues it may read. A schedule goes with its queue (ON DELETE CASCADE).
CREATE TABLE fetchq.periodic_schedules (
    id SERIAL PRIMARY KEY,
    name CHARACTER VARYING(40) NOT NULL UNIQUE,
    queue CHARACTER VARYING(40) NOT NULL REFERENCES fetchq.queues (name) ON DELETE CASCADE,
    cron TEXT,
    every INTERVAL,
    timezone TEXT NOT NULL,
    subject TEXT NOT NULL,
    payload JSONB NOT NULL,
    version INTEGER NOT NULL,
    priority INTEGER NOT NULL,
    expires_after INTERVAL,
    catch_up TEXT NOT NULL CHECK (catch_up IN ('none', 'all')),
    next_at TIMESTAMP WITH TIME ZONE NOT NULL,
    last_at TIMESTAMP WITH TIME ZONE,
    last_subject TEXT,
    paused BOOLEAN NOT NULL DEFAULT false,
    owner REGROLE NOT NULL,
    created_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    -- Ticks pushed (a tick whose subject existed counted too), and ticks
    -- missed that catch_up skipped.
    ticks_pushed BIGINT NOT NULL DEFAULT 0,
    ticks_skipped BIGINT NOT NULL DEFAULT 0,
    CHECK ((cron IS NULL) <> (every IS NULL))
);
CREATE INDEX periodic_schedules_next_at_idx ON fetchq.periodic_schedules (next_at)
    WHERE NOT paused;
ALTER TABLE fetchq.periodic_schedules ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.periodic_schedules', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.periodic_schedules_id_seq', '');
