-- The functions run with the caller's privileges on the queues' tables
-- (docs/install.md, section 5); fetchq's catalog, the counter row a commit
-- writes included (src/ops/counters/counter_row.cpp), is written by fetchq itself,
-- as the extension's owner: a role needs no privilege on it but SELECT.
SELECT was_created FROM fetchq.queue_create('privileges_q');
-- This backend's counter row of the queue exists from now on.
SELECT fetchq.doc_push('privileges_q', 'by_owner');

CREATE ROLE fetchq_privileges_app;
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO fetchq_privileges_app;
GRANT SELECT ON fetchq.queues, fetchq.metrics TO fetchq_privileges_app;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA fetchq_data TO fetchq_privileges_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA fetchq_data TO fetchq_privileges_app;

-- INSERT on the documents and no privilege on the counters: the push is
-- counted at commit, in place (this backend's row exists).
SET ROLE fetchq_privileges_app;
SELECT fetchq.doc_push('privileges_q', 'counted');
-- ... and a counter of another name is inserted by fetchq too
SELECT fetchq.metric_increment('privileges_q', 'privileges_custom', 2);
-- picking updates the documents: no UPDATE on the queue's tables yet
\set VERBOSITY terse
SELECT subject FROM fetchq.doc_pick('privileges_q', 0, 1, '5m');
-- the counters themselves are fetchq's: no role writes or locks them
UPDATE fetchq.counters SET cnt = 0;
BEGIN;
LOCK TABLE fetchq.counters IN ROW EXCLUSIVE MODE;
ROLLBACK;
\set VERBOSITY default
RESET ROLE;
SELECT count(*) AS documents FROM fetchq_data.privileges_q__docs;
SELECT current_value FROM fetchq.metric_get('privileges_q', 'cnt');
SELECT current_value FROM fetchq.metric_get('privileges_q', 'privileges_custom');

REVOKE ALL ON ALL TABLES IN SCHEMA fetchq, fetchq_data FROM fetchq_privileges_app;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA fetchq, fetchq_data FROM fetchq_privileges_app;
REVOKE ALL ON SCHEMA fetchq, fetchq_data FROM fetchq_privileges_app;
DROP ROLE fetchq_privileges_app;
SELECT was_dropped FROM fetchq.queue_drop('privileges_q');
