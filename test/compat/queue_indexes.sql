-- Fetchq 4's index helpers, which its own queue_create and queue_set_*
-- call: they answer true for an existing queue.
-- requires: fetchq.queue_create_indexes(varchar); fetchq.queue_create_indexes(varchar, integer, integer)
SELECT was_created FROM fetchq.queue_create('compat_idx');
SELECT * FROM fetchq.queue_create_indexes('compat_idx');
SELECT * FROM fetchq.queue_create_indexes('compat_idx', 1, 5);
SELECT * FROM fetchq.queue_drop_version('compat_idx', 1);
SELECT * FROM fetchq.queue_drop_indexes('compat_idx');
SELECT * FROM fetchq.queue_create_indexes('compat_idx');
-- Picking works with whatever indexes there are.
SELECT * FROM fetchq.doc_push('compat_idx', 'a', '{}');
SELECT subject FROM fetchq.doc_pick('compat_idx', 0, 1, '5m');
SELECT was_dropped FROM fetchq.queue_drop('compat_idx');
