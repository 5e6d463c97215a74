-- A backend starts its next update of a counter row from the version it
-- wrote last (ops/counters/counter_row.cpp): the counts stay exact when that version
-- moved, vanished, or its address now holds another queue's row.
SET client_min_messages = warning;
SELECT was_created FROM fetchq.queue_create('addr_q');
SELECT was_created FROM fetchq.queue_create('addr_o1');
SELECT was_created FROM fetchq.queue_create('addr_o2');
-- This database's table, emptied and compacted so that the addresses below
-- are known.
DELETE FROM fetchq.counters;
VACUUM FULL fetchq.counters;

SELECT fetchq.doc_push('addr_q', 'a1', '{}');  -- inserts the row
SELECT fetchq.doc_push('addr_q', 'a2', '{}');  -- updates it: the address to start from
SELECT ctid AS known FROM fetchq.counters WHERE queue = 'addr_q' \gset
SELECT fetchq.doc_push('addr_o1', 'o', '{}');
SELECT fetchq.doc_push('addr_o2', 'o', '{}');

-- the row deleted and the table rewritten: its address now holds another
-- queue's row of the same slot, which must not be counted into
DELETE FROM fetchq.counters WHERE queue = 'addr_q';
VACUUM FULL fetchq.counters;
SELECT queue AS now_at_the_address FROM fetchq.counters WHERE ctid = :'known';
SELECT fetchq.doc_push('addr_q', 'a3', '{}');
SELECT queue, cnt FROM fetchq.counters WHERE queue LIKE 'addr%' ORDER BY queue;

-- the row moved on by another writer: a plain UPDATE
SELECT fetchq.doc_push('addr_q', 'a4', '{}');
UPDATE fetchq.counters SET cnt = cnt + 10 WHERE queue = 'addr_q';
SELECT fetchq.doc_push('addr_q', 'a5', '{}');
SELECT current_value FROM fetchq.metric_get('addr_q', 'cnt');

-- an update that rolls back leaves an aborted version after the address
BEGIN;
SELECT fetchq.doc_push('addr_q', 'a6', '{}');
ROLLBACK;
SELECT fetchq.doc_push('addr_q', 'a7', '{}');
SELECT current_value FROM fetchq.metric_get('addr_q', 'cnt');
SELECT count(*) AS rows_of_addr_q FROM fetchq.counters WHERE queue = 'addr_q';

-- a thousand commits of one backend update its row in place: the versions
-- left behind are pruned from the page, so the table does not grow between
-- two vacuums (it grew by a page every hundred commits before)
VACUUM FULL fetchq.counters;
DO $$
BEGIN
    FOR i IN 1..1000 LOOP
        PERFORM fetchq.doc_push('addr_q', 'b' || i, '{}');
        COMMIT;
    END LOOP;
END $$;
SELECT current_value FROM fetchq.metric_get('addr_q', 'cnt');
SELECT pg_relation_size('fetchq.counters') / current_setting('block_size')::int <= 2
    AS counters_in_two_pages;

SELECT was_dropped FROM fetchq.queue_drop('addr_q');
SELECT was_dropped FROM fetchq.queue_drop('addr_o1');
SELECT was_dropped FROM fetchq.queue_drop('addr_o2');
