-- One pgbench transaction: pick up to k documents for 5 minutes and record
-- who received what. Run by test/concurrency/run.sh with several clients.
\set k random(1, 20)
INSERT INTO picked (subject, pid)
SELECT subject, pg_catalog.pg_backend_pid() FROM fetchq.doc_pick('concurrency_pick', 0, :k, '5m');
