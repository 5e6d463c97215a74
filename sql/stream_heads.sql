-- An append updates its key's head row, and a commit its group's row, in
-- place (ops/streams/stream_append.cpp, ops/streams/stream_commit.cpp), each pruning the
-- row's page first: 3,000 of each, one transaction each, number and commit
-- exactly and leave the two tables at a few pages.
SET client_min_messages = warning;
SELECT was_created FROM fetchq.stream_create('heads_s');
SELECT count(fetchq.stream_append('heads_s', 'k' || g, '{}')) FROM generate_series(1, 100) g;
SELECT count(fetchq.stream_commit('heads_s', 'g', 'k' || g, 1)) FROM generate_series(1, 100) g;
VACUUM fetchq.stream_keys, fetchq.stream_offsets;
-- 3,000 appends and commits over 100 keys, one transaction each
DO $$
DECLARE
  o bigint;
BEGIN
  FOR i IN 1..3000 LOOP
    o := fetchq.stream_append('heads_s', 'k' || (i % 100 + 1), '{}');
    COMMIT;
    PERFORM fetchq.stream_commit('heads_s', 'g', 'k' || (i % 100 + 1), o);
    COMMIT;
  END LOOP;
END $$;
SELECT pg_relation_size('fetchq.stream_keys') / 8192 <= 3 AS keys_stay_small,
       pg_relation_size('fetchq.stream_offsets') / 8192 <= 3 AS offsets_stay_small;
SELECT sum(last_offset) AS offsets_given,
       (SELECT sum(committed) FROM fetchq.stream_offsets o WHERE o.stream_id = s.id) AS committed
FROM fetchq.stream_keys k JOIN fetchq.streams s ON s.id = k.stream_id
WHERE s.name = 'heads_s' GROUP BY s.id;
SELECT fetchq.stream_drop('heads_s');
