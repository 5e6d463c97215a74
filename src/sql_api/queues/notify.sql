-- Notifications (src/sql_api/queues/notify.cpp)
-- Channels: fetchq_on_change (changes of fetchq.queues, JSON payload) and,
-- for queues with notify enabled, fetchq__<queue>__<pln|pnd|act|cpl|kll>
-- (payload: the document's subject).

CREATE FUNCTION fetchq.trigger_notify_as_json() RETURNS TRIGGER
AS 'MODULE_PATHNAME', 'fetchq_trigger_notify_as_json' LANGUAGE C;

CREATE FUNCTION fetchq.trigger_docs_notify_insert() RETURNS TRIGGER
AS 'MODULE_PATHNAME', 'fetchq_trigger_docs_notify_insert' LANGUAGE C;

CREATE FUNCTION fetchq.trigger_docs_notify_update() RETURNS TRIGGER
AS 'MODULE_PATHNAME', 'fetchq_trigger_docs_notify_update' LANGUAGE C;

CREATE FUNCTION fetchq.queue_enable_notify(queue VARCHAR, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_enable_notify' LANGUAGE C VOLATILE;

CREATE FUNCTION fetchq.queue_disable_notify(queue VARCHAR, OUT success BOOLEAN)
AS 'MODULE_PATHNAME', 'fetchq_queue_disable_notify' LANGUAGE C VOLATILE;

-- Fetchq clients reload their queue settings on these notifications.
CREATE TRIGGER fetchq_trigger_sys_queues_insert AFTER INSERT OR UPDATE OR DELETE
    ON fetchq.queues FOR EACH ROW EXECUTE FUNCTION fetchq.trigger_notify_as_json();
