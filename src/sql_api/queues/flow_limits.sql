-- Flow limits of a queue (src/sql_api/queues/flow_limits.cpp,
-- src/ops/flow/): set by a role with manage on the queue.

-- fetchq: at most max_active documents of the queue active at once, at most
-- key_max_active of each flow_key (doc_send's); NULL: no limit. Every call
-- sets all of them; all NULL removes the queue's limits. key_rate,
-- key_burst and fair are refused (0A000) until they are built.
CREATE FUNCTION fetchq.queue_set_limits(queue VARCHAR, max_active INTEGER DEFAULT NULL,
    key_max_active INTEGER DEFAULT NULL, key_rate INTEGER DEFAULT NULL,
    key_rate_interval INTERVAL DEFAULT '1 second', key_burst INTEGER DEFAULT NULL,
    fair BOOLEAN DEFAULT false, OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_limits' LANGUAGE C VOLATILE;

-- fetchq: one key's own key_max_active (a tier); NULL takes the queue's.
CREATE FUNCTION fetchq.queue_set_key_limits(queue VARCHAR, flow_key TEXT,
    key_max_active INTEGER DEFAULT NULL, key_rate INTEGER DEFAULT NULL,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_set_key_limits' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_drop_key_limits(queue VARCHAR, flow_key TEXT,
    OUT affected_rows INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_queue_drop_key_limits' LANGUAGE C VOLATILE;

-- Empties every backend's cache of flow limits
-- (src/ops/catalog/catalog_cache.hpp) when a change commits, however made.
CREATE FUNCTION fetchq.flow_limits_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE TRIGGER fetchq_flow_limits_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.flow_limits FOR EACH STATEMENT EXECUTE FUNCTION fetchq.flow_limits_changed();

CREATE TRIGGER fetchq_flow_key_limits_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.flow_key_limits FOR EACH STATEMENT EXECUTE FUNCTION fetchq.flow_limits_changed();

-- fetchq: the ready documents of the queue that its limits keep back now
-- (all of them while max_active is reached, else those of keys at their
-- cap); 0 for a queue without limits. The last column of fetchq.stats.
CREATE FUNCTION fetchq.queue_held_back(queue VARCHAR) RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_queue_held_back' LANGUAGE C STABLE;

-- fetchq: per queue with limits that the current role may read, per key with
-- pending or active documents or a rate's state: its active and ready
-- documents, the ready ones its limits keep back now, and the tokens of its
-- rate (key_burst + 1 when full; NULL without a rate).
CREATE FUNCTION fetchq.flow_keys_list()
RETURNS TABLE(queue TEXT, flow_key TEXT, active BIGINT, ready BIGINT, held_back BIGINT,
    tokens DOUBLE PRECISION)
AS 'MODULE_PATHNAME', 'fetchq_flow_keys_list' LANGUAGE C STABLE ROWS 100;

CREATE VIEW fetchq.flow_keys AS SELECT * FROM fetchq.flow_keys_list();
GRANT SELECT ON fetchq.flow_keys TO PUBLIC;
