-- Parameters without a type, as drivers send them: doc_pick($1, $2) is
-- doc_pick(queue, duration varchar) on both sides. Given a number without a
-- unit, meant as a limit, Fetchq 4 locks one document for that many
-- seconds; fetchq refuses it (docs/api.md, untyped parameters). Elsewhere a
-- number without a unit is seconds on both sides.
-- The differences are recorded in expected_differences/defects_untyped.diff.
SELECT was_created FROM fetchq.queue_create('compat_ut');
SELECT * FROM fetchq.doc_push('compat_ut', 'a');
SELECT * FROM fetchq.doc_push('compat_ut', 'b');
SELECT * FROM fetchq.doc_push('compat_ut', 'c');
PREPARE pw AS SELECT subject FROM fetchq.doc_pick($1, $2);
EXECUTE pw('compat_ut', 5);
SELECT count(*) AS active FROM fetchq_data.compat_ut__docs WHERE status = 2;
EXECUTE pw('compat_ut', '5m');
SELECT count(*) AS active_for_5_minutes FROM fetchq_data.compat_ut__docs
WHERE status = 2 AND next_iteration BETWEEN now() + interval '299 seconds' AND now() + interval '301 seconds';
SELECT subject, next_iteration BETWEEN now() + interval '29 seconds' AND now() + interval '31 seconds' AS for_30_seconds
FROM fetchq.doc_pick('compat_ut', 0, 1, '30');
DEALLOCATE pw;
SELECT was_dropped FROM fetchq.queue_drop('compat_ut');
