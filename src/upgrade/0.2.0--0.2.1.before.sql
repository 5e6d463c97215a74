-- Update from 0.2.0, first part: what the catalog of 0.2.0 has otherwise,
-- before the objects of 0.2.1 are created or replaced.

-- worker_status() gets the columns last_error_at and recovered_at at the end:
-- its result columns change, which CREATE OR REPLACE cannot do.
DROP FUNCTION fetchq.worker_status();

-- Appends no longer check a foreign key from their key's row to the stream
-- (PostgreSQL checks it again at every update of a row this transaction
-- wrote): stream_drop deletes the keys itself, after waiting for the appends
-- under way on a lock of the stream.
ALTER TABLE fetchq.stream_keys DROP CONSTRAINT stream_keys_stream_id_fkey;

-- Who set a queue's dead-letter queue: each copy into it is checked against
-- that role's rights. Rows set under 0.2.0 get NULL, which stands for the
-- queue's owner.
ALTER TABLE fetchq.queues ADD COLUMN dead_letter_set_by REGROLE;

-- Streams: consumer groups idle for longer than a stream's group_max_idle
-- are dropped by the scheduler (stream_set_group_max_idle), and a group
-- records the role that registered it (who may drop it besides the
-- stream's owner: stream_group_drop). Groups of 0.2.0 have none.
ALTER TABLE fetchq.streams
    ADD COLUMN group_max_idle INTERVAL CHECK (group_max_idle > interval '0');
ALTER TABLE fetchq.stream_groups ADD COLUMN created_by REGROLE;

-- Deferred counters (queue_set_counters): every queue of 0.2.0 counts exactly.
ALTER TABLE fetchq.queues ADD COLUMN counters_mode TEXT NOT NULL DEFAULT 'exact'
    CHECK (counters_mode IN ('exact', 'deferred'));

-- Flow limits (issue 35): doc_take and doc_peek return a document's
-- flow_key as their last column, which CREATE OR REPLACE cannot add.
DROP FUNCTION fetchq.doc_take(VARCHAR, VARCHAR, VARCHAR, BOOLEAN);
DROP FUNCTION fetchq.doc_peek(VARCHAR, VARCHAR);

-- Every queue's documents table gets flow_key at its end, as
-- queue_create makes it.
DO $fetchq_flow_key$
DECLARE
    t pg_catalog.regclass;
BEGIN
    FOR t IN
        SELECT c.oid::pg_catalog.regclass
        FROM fetchq.queues AS q
        JOIN pg_catalog.pg_class AS c
            ON c.oid = pg_catalog.to_regclass('fetchq_data.' || pg_catalog.quote_ident(q.name || '__docs'))
        ORDER BY q.name
    LOOP
        EXECUTE pg_catalog.format('ALTER TABLE %s ADD COLUMN flow_key TEXT', t);
    END LOOP;
END
$fetchq_flow_key$;
