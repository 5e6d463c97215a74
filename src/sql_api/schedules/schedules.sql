-- Periodic schedules (src/sql_api/schedules/schedules.cpp; the table is in
-- src/schema/07_schedules.sql)

-- Pushes a document into queue at each tick of `every` (a cron expression
-- read in `timezone`, default the session's TimeZone; or an interval of at
-- least 1 second), with the rights of the caller, who needs push on the
-- queue. The subject of a tick's document: `subject` with {tick} replaced
-- by the tick in ISO 8601 UTC (or the tick appended after a hyphen).
-- Returns the first tick.
CREATE FUNCTION fetchq.schedule_create(name VARCHAR, queue VARCHAR, every TEXT, subject TEXT,
    payload JSONB DEFAULT '{}', version INTEGER DEFAULT 0, priority INTEGER DEFAULT 0,
    expires_after INTERVAL DEFAULT NULL, catch_up TEXT DEFAULT 'none',
    timezone TEXT DEFAULT NULL)
RETURNS TIMESTAMP WITH TIME ZONE
AS 'MODULE_PATHNAME', 'fetchq_schedule_create' LANGUAGE C VOLATILE;

-- Its owner, the queue's owner, or a superuser.
CREATE FUNCTION fetchq.schedule_drop(name VARCHAR) RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_schedule_drop' LANGUAGE C VOLATILE;
CREATE FUNCTION fetchq.schedule_pause(name VARCHAR) RETURNS BOOLEAN
AS 'MODULE_PATHNAME', 'fetchq_schedule_pause' LANGUAGE C VOLATILE;
-- Returns the next tick: the first after now (the ticks of the pause are
-- skipped).
CREATE FUNCTION fetchq.schedule_resume(name VARCHAR) RETURNS TIMESTAMP WITH TIME ZONE
AS 'MODULE_PATHNAME', 'fetchq_schedule_resume' LANGUAGE C VOLATILE;

-- The schedules of the queues the caller may read, and its own.
CREATE VIEW fetchq.schedules WITH (security_barrier) AS
SELECT s.name, s.queue, COALESCE(s.cron, s.every::pg_catalog.text) AS every, s.timezone,
       s.next_at, s.last_at, s.last_subject, s.paused, s.owner, s.ticks_pushed, s.ticks_skipped
FROM fetchq.periodic_schedules AS s
WHERE pg_catalog.pg_has_role(s.owner::pg_catalog.oid, 'USAGE')
   OR fetchq.queue_has_privilege(s.queue, 'read');

GRANT SELECT ON fetchq.schedules TO PUBLIC;
