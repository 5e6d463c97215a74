-- Routes, topics and subscriptions (src/sql_api/routes/routes.cpp; the table is in
-- src/schema/02_routes.sql)

-- Every document that arrives in source and matches selector (a SQL/JSON
-- path predicate over the payload; NULL: every document) is also pushed into
-- destination, in the same transaction, with the rights of the route's
-- creator. Returns the route's id.
CREATE FUNCTION fetchq.route_create(source VARCHAR, destination VARCHAR,
    selector TEXT DEFAULT NULL)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_route_create' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.route_drop(source VARCHAR, destination VARCHAR)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_route_drop' LANGUAGE C VOLATILE;

-- A queue that keeps nothing and only routes: a push into it returns how
-- many subscriptions queued the document.
CREATE FUNCTION fetchq.topic_create(name VARCHAR, OUT was_created BOOLEAN,
    OUT queue_id INTEGER)
AS 'MODULE_PATHNAME', 'fetchq_topic_create' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.subscribe(topic VARCHAR, queue VARCHAR, selector TEXT DEFAULT NULL)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_subscribe' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.unsubscribe(topic VARCHAR, queue VARCHAR)
RETURNS BIGINT
AS 'MODULE_PATHNAME', 'fetchq_unsubscribe' LANGUAGE C VOLATILE;

-- A temporary queue of the calling session (as queue_create_temporary),
-- subscribed to the topic; the scheduler drops both once the session ends.
CREATE FUNCTION fetchq.subscribe_temporary(topic VARCHAR, selector TEXT DEFAULT NULL,
    idle_timeout INTERVAL DEFAULT NULL)
RETURNS VARCHAR
AS 'MODULE_PATHNAME', 'fetchq_subscribe_temporary' LANGUAGE C VOLATILE;

-- Empties every backend's cache of routes (src/ops/catalog/catalog_cache.hpp) when a
-- change of fetchq.routes commits, however it was made.
CREATE FUNCTION fetchq.routes_changed() RETURNS trigger
AS 'MODULE_PATHNAME', 'fetchq_queues_changed' LANGUAGE C;

CREATE TRIGGER fetchq_routes_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON fetchq.routes FOR EACH STATEMENT EXECUTE FUNCTION fetchq.routes_changed();
