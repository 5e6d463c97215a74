-- Update from 0.1.0, first part: what the catalog of 0.1.0 lacks or has
-- otherwise, before the objects of 0.2.0 are created or replaced
-- (src/upgrade/README.md). Columns are added at the end, as a fresh
-- install has them; no row of 0.1.0 changes.

-- Settings of 0.2.0 in the queues catalog (src/schema/01_catalog.sql).
ALTER TABLE fetchq.queues
    ADD COLUMN dead_letter_queue CHARACTER VARYING(40)
        CHECK (dead_letter_queue ~ '^[a-z0-9_]{1,40}$'),
    ADD COLUMN retry_delay INTERVAL,
    ADD COLUMN retry_factor DOUBLE PRECISION,
    ADD COLUMN retry_max_delay INTERVAL,
    ADD COLUMN retry_jitter DOUBLE PRECISION,
    ADD COLUMN completed_retention INTERVAL,
    ADD COLUMN killed_retention INTERVAL,
    ADD COLUMN is_topic BOOLEAN NOT NULL DEFAULT false;

-- Functions whose result columns or arguments changed: CREATE OR REPLACE
-- cannot change those.
DROP FUNCTION fetchq.queue_create_temporary();
DROP FUNCTION fetchq.metric_get_common(VARCHAR);
DROP FUNCTION fetchq.metric_get_all();
