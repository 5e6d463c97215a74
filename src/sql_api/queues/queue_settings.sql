-- A queue's settings and indexes (src/sql_api/queues/queue_settings.cpp)

CREATE FUNCTION fetchq.queue_create_indexes(queue VARCHAR, OUT was_created BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_create_indexes' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_create_indexes(queue VARCHAR, version INTEGER, attempts INTEGER,
    OUT was_created BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_create_indexes' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_drop_indexes(queue VARCHAR, OUT was_dropped BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_indexes' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_set_max_attempts(queue VARCHAR, max_attempts INTEGER,
    OUT affected_rows INTEGER, OUT was_reindexed BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_max_attempts' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_set_current_version(queue VARCHAR, version INTEGER,
    OUT affected_rows INTEGER, OUT was_reindexed BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_current_version' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_drop_version(queue VARCHAR, version INTEGER,
    OUT was_dropped BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_version' LANGUAGE C VOLATILE;

-- fetchq: how long completed and killed documents are kept after their last
-- change (NULL: forever); the scheduler deletes the older ones.
CREATE FUNCTION fetchq.queue_set_retention(queue VARCHAR, completed INTERVAL,
    killed INTERVAL, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_retention' LANGUAGE C VOLATILE;

-- fetchq: the queue that receives a copy of every document this one kills
-- (NULL: none); records the caller in dead_letter_set_by.
CREATE FUNCTION fetchq.queue_set_dead_letter(queue VARCHAR, dead_letter_queue VARCHAR,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_dead_letter' LANGUAGE C VOLATILE;

-- fetchq: when a rejected document or an orphan is pickable again: after
-- delay * factor^(attempts - 1), at most max_delay, spread by +-jitter (a
-- fraction); delay NULL turns the policy off (Fetchq 4's behaviour).
CREATE FUNCTION fetchq.queue_set_retry_policy(queue VARCHAR, delay INTERVAL,
    factor DOUBLE PRECISION DEFAULT 2, max_delay INTERVAL DEFAULT NULL,
    jitter DOUBLE PRECISION DEFAULT 0, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_retry_policy' LANGUAGE C VOLATILE;

-- fetchq: how the queue's counters are written: 'exact' (in each document's
-- transaction) or 'deferred' (through shared memory, folded into
-- fetchq.counters by the scheduler).
CREATE FUNCTION fetchq.queue_set_counters(queue VARCHAR, mode TEXT, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_counters' LANGUAGE C VOLATILE;

-- Empties every backend's cache of queue settings (src/ops/catalog/catalog_cache.hpp)
-- when a change of fetchq.queues commits, however it was made.
CREATE FUNCTION fetchq.queues_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE TRIGGER fetchq_queues_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.queues FOR EACH STATEMENT EXECUTE FUNCTION fetchq.queues_changed();

-- Keeps fetchq.queues.dead_letter_set_by truthful under plain writes of the
-- row: a role may record there only itself or a role whose privileges it
-- has; a change of dead_letter_queue that names nobody records the writer.
CREATE FUNCTION fetchq.queues_dead_letter_set_by() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_dead_letter_set_by' LANGUAGE C;

CREATE TRIGGER fetchq_queues_dead_letter_set_by
    BEFORE INSERT OR UPDATE OF dead_letter_queue, dead_letter_set_by ON fetchq.queues
    FOR EACH ROW EXECUTE FUNCTION fetchq.queues_dead_letter_set_by();
