-- Fetchq 4 clients double the quotes of JSON arguments (Fetchq 4 pasted them
-- into SQL); fetchq.fetchq4_quoting (on by default) reads them the same way.
SET client_min_messages = warning;
SELECT was_created FROM fetchq.queue_create('quote_q');
SHOW fetchq.fetchq4_quoting;
-- what the Node client sends for {"a": "it's"}: the value holds two quotes
SELECT fetchq.doc_push('quote_q', 'q1', 0, 0, now(), '{"a": "it''''s", "b": "one '' quote"}');
SELECT fetchq.doc_push('quote_q', 'q2', '{"k''''ey": "x"}');
SELECT length(fetchq.doc_append('quote_q', '{"appended": "O''''Reilly"}'));
SELECT CASE WHEN length(subject) = 36 THEN '<uuid>' ELSE subject END AS subject, payload
FROM fetchq_data.quote_q__docs ORDER BY payload::text;
SELECT count(*) FROM fetchq.doc_pick('quote_q', 0, 10, '5m');
SELECT fetchq.doc_complete('quote_q', 'q1', '{"done": "it''''s done"}');
SELECT fetchq.doc_reject('quote_q', 'q2', 'it''s bad', '{"why": "can''''t"}');
SELECT payload FROM fetchq_data.quote_q__docs WHERE subject = 'q1';
SELECT message, details FROM fetchq_data.quote_q__logs;
-- off: JSON is stored exactly as given
SET fetchq.fetchq4_quoting = off;
SELECT fetchq.doc_push('quote_q', 'q3', '{"a": "it''''s"}');
SELECT payload FROM fetchq_data.quote_q__docs WHERE subject = 'q3';
RESET fetchq.fetchq4_quoting;
-- the new batch functions never rewrite anything
SELECT fetchq.doc_push_many('quote_q', ARRAY['q4'], ARRAY['{"a": "it''''s"}']::jsonb[]);
SELECT payload FROM fetchq_data.quote_q__docs WHERE subject = 'q4';
SELECT was_dropped FROM fetchq.queue_drop('quote_q');
