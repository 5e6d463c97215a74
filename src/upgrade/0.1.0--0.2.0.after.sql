-- Update from 0.1.0, last part: the rows and per-queue objects that 0.2.0
-- keeps otherwise (src/upgrade/README.md).

-- 0.1.0 marked a temporary queue in fetchq.queues.owner_session; 0.2.0's
-- scheduler drops those listed in fetchq.temporary_queues. Their sessions
-- ended with the restart that loaded the new library, so the scheduler drops
-- them at its first round, as 0.1.0's would have.
INSERT INTO fetchq.temporary_queues (name, session_key, created_by)
SELECT q.name, q.owner_session, c.relowner
FROM fetchq.queues AS q
JOIN pg_catalog.pg_class AS c
    ON c.oid = pg_catalog.to_regclass('fetchq_data.' || pg_catalog.quote_ident(q.name || '__docs'))
WHERE q.owner_session IS NOT NULL;

-- Indexes 0.2.0 gives every queue (retention of completed and killed
-- documents), made as each queue's owner, as queue_create_indexes does.
SELECT fetchq.queue_create_indexes(q.name)
FROM fetchq.queues AS q
WHERE pg_catalog.to_regclass('fetchq_data.' || pg_catalog.quote_ident(q.name || '__docs')) IS NOT NULL
ORDER BY q.name;
