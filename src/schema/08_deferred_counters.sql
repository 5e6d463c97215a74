-- Deferred counters (queue_set_counters(queue, 'deferred')): the changes
-- that shared memory holds until the scheduler folds them into
-- fetchq.counters (src/ops/counters/deferred.hpp), as rows of stripe -1 of
-- fetchq.metrics, so that every reader of counters adds them.
CREATE FUNCTION fetchq.counter_deltas()
RETURNS TABLE (queue VARCHAR, metric VARCHAR, value BIGINT, updated_at TIMESTAMP WITH TIME ZONE)
AS 'MODULE_PATHNAME', 'fetchq_counter_deltas' LANGUAGE C VOLATILE;

-- Every counter row by row, whichever table holds it, in the shape of
-- Fetchq 4's table of the same name (plus slot; id is NULL for the standard
-- counters): what metric_get* sum. (CREATE OR REPLACE: the update from 0.2.0
-- replaces that version's view.)
CREATE OR REPLACE VIEW fetchq.metrics AS
SELECT NULL::integer AS id, c.queue, v.metric::varchar(40) AS metric, v.value, c.updated_at,
       c.slot
FROM fetchq.counters AS c
CROSS JOIN LATERAL (VALUES ('cnt'::varchar(40), c.cnt), ('pln', c.pln), ('pnd', c.pnd),
                           ('act', c.act), ('cpl', c.cpl), ('kll', c.kll), ('ent', c.ent),
                           ('drp', c.drp), ('pkd', c.pkd), ('prc', c.prc), ('res', c.res),
                           ('rej', c.rej), ('orp', c.orp), ('err', c.err),
                           ('v0', c.v0)) AS v(metric, value)
WHERE v.value IS NOT NULL
UNION ALL
SELECT m.id, m.queue, m.metric, m.value, m.updated_at, m.slot FROM fetchq.custom_counters AS m
UNION ALL
SELECT NULL::integer, d.queue::varchar(40), d.metric::varchar(40), d.value, d.updated_at,
       (-1)::smallint
FROM fetchq.counter_deltas() AS d;
