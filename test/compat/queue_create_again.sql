-- queue_create of an existing queue creates nothing and consumes no id: the
-- next new queue gets the next id.
SELECT was_created FROM fetchq.queue_create('compat_qca_a');
SELECT was_created FROM fetchq.queue_create('compat_qca_a');
SELECT was_created FROM fetchq.queue_create('compat_qca_a');
SELECT b.queue_id - a.queue_id AS id_step
FROM fetchq.queue_get_id('compat_qca_a') AS a, fetchq.queue_create('compat_qca_b') AS b;
SELECT was_dropped FROM fetchq.queue_drop('compat_qca_a');
SELECT was_dropped FROM fetchq.queue_drop('compat_qca_b');
