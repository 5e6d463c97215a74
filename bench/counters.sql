-- Ways to write a transaction's counters (bench/run.sh --profile runs them):
-- what one commit of a pick (act +1, pkd +1, pnd -1) costs the server with the
-- extension's statement (src/pg/metrics.cpp), with the same statement on a
-- table without Fetchq 4's serial id column, and with one row per (queue,
-- stripe) holding a column per counter. Sections as in floor.sql; each
-- pgbench script is one transaction.

-- @setup
-- fetchq.metrics as the extension has it (serial id kept for Fetchq 4).
CREATE TABLE narrow (id SERIAL PRIMARY KEY, queue VARCHAR(40) NOT NULL,
                     metric VARCHAR(40) NOT NULL, value BIGINT NOT NULL,
                     updated_at TIMESTAMPTZ, slot SMALLINT NOT NULL DEFAULT 0,
                     UNIQUE (queue, metric, slot));
CREATE TABLE narrow_noid (queue VARCHAR(40) NOT NULL, metric VARCHAR(40) NOT NULL,
                          value BIGINT NOT NULL, updated_at TIMESTAMPTZ,
                          slot SMALLINT NOT NULL DEFAULT 0, PRIMARY KEY (queue, metric, slot));
CREATE TABLE wide (queue VARCHAR(40) NOT NULL, slot SMALLINT NOT NULL,
                   cnt INT8 NOT NULL DEFAULT 0, pln INT8 NOT NULL DEFAULT 0,
                   pnd INT8 NOT NULL DEFAULT 0, act INT8 NOT NULL DEFAULT 0,
                   cpl INT8 NOT NULL DEFAULT 0, kll INT8 NOT NULL DEFAULT 0,
                   ent INT8 NOT NULL DEFAULT 0, drp INT8 NOT NULL DEFAULT 0,
                   pkd INT8 NOT NULL DEFAULT 0, prc INT8 NOT NULL DEFAULT 0,
                   res INT8 NOT NULL DEFAULT 0, rej INT8 NOT NULL DEFAULT 0,
                   orp INT8 NOT NULL DEFAULT 0, err INT8 NOT NULL DEFAULT 0,
                   updated_at TIMESTAMPTZ, PRIMARY KEY (queue, slot));
INSERT INTO narrow (queue, metric, slot, value)
SELECT 'bq', m, s, 0 FROM unnest('{cnt,pln,pnd,act,cpl,kll,ent,pkd,prc,v0}'::text[]) AS m,
     generate_series(0, 15) AS s;
INSERT INTO narrow_noid (queue, metric, slot, value) SELECT queue, metric, slot, value FROM narrow;
INSERT INTO wide (queue, slot) SELECT 'bq', s FROM generate_series(0, 15) AS s;

-- @upsert
INSERT INTO narrow AS m (queue, metric, slot, value, updated_at)
SELECT u.queue, u.metric, 4::int2, u.delta, now()
FROM unnest('{bq,bq,bq}'::text[], '{act,pkd,pnd}'::text[], '{1,1,-1}'::int8[])
     WITH ORDINALITY AS u(queue, metric, delta, n) ORDER BY u.n
ON CONFLICT (queue, metric, slot) DO UPDATE
SET value = m.value + EXCLUDED.value, updated_at = EXCLUDED.updated_at;

-- @upsert_noid
INSERT INTO narrow_noid AS m (queue, metric, slot, value, updated_at)
SELECT u.queue, u.metric, 4::int2, u.delta, now()
FROM unnest('{bq,bq,bq}'::text[], '{act,pkd,pnd}'::text[], '{1,1,-1}'::int8[])
     WITH ORDINALITY AS u(queue, metric, delta, n) ORDER BY u.n
ON CONFLICT (queue, metric, slot) DO UPDATE
SET value = m.value + EXCLUDED.value, updated_at = EXCLUDED.updated_at;

-- @wide_row
UPDATE wide SET act = act + 1, pkd = pkd + 1, pnd = pnd - 1, updated_at = now()
WHERE queue = 'bq' AND slot = 4;
