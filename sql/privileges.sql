-- The functions run with the caller's privileges (docs/install.md, section 5),
-- including the counter row a commit writes (src/pg/counter_row.cpp).
SELECT was_created FROM fetchq.queue_create('privileges_q');
-- This backend's counter row of the queue exists from now on.
SELECT fetchq.doc_push('privileges_q', 'by_owner');

CREATE ROLE fetchq_privileges_app;
GRANT USAGE ON SCHEMA fetchq, fetchq_data TO fetchq_privileges_app;
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA fetchq, fetchq_data TO fetchq_privileges_app;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA fetchq, fetchq_data TO fetchq_privileges_app;

-- INSERT on the documents but no UPDATE on the counters: the commit fails,
-- and the document goes with it.
SET ROLE fetchq_privileges_app;
SELECT fetchq.doc_push('privileges_q', 'no_counter_update');
RESET ROLE;
SELECT count(*) AS documents FROM fetchq_data.privileges_q__docs;
SELECT current_value FROM fetchq.metric_get('privileges_q', 'cnt');

GRANT UPDATE ON fetchq.counters TO fetchq_privileges_app;
SET ROLE fetchq_privileges_app;
SELECT fetchq.doc_push('privileges_q', 'with_counter_update');
-- picking updates the documents: no UPDATE on the queue's tables yet
\set VERBOSITY terse
SELECT subject FROM fetchq.doc_pick('privileges_q', 0, 1, '5m');
\set VERBOSITY default
RESET ROLE;
SELECT count(*) AS documents FROM fetchq_data.privileges_q__docs;
SELECT current_value FROM fetchq.metric_get('privileges_q', 'cnt');

REVOKE ALL ON ALL TABLES IN SCHEMA fetchq, fetchq_data FROM fetchq_privileges_app;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA fetchq, fetchq_data FROM fetchq_privileges_app;
REVOKE ALL ON SCHEMA fetchq, fetchq_data FROM fetchq_privileges_app;
DROP ROLE fetchq_privileges_app;
SELECT was_dropped FROM fetchq.queue_drop('privileges_q');
