-- Flow limits (queue_set_limits, queue_set_key_limits): how many documents of
-- a queue, and of each flow_key (doc_send's), may be active at once. Read
-- and written by fetchq as the table's owner (the role that created the
-- extension): row security is on with a read policy only, as fetchq.routes
-- has; the set functions check manage on the queue first. Rows go with
-- their queue (ON DELETE CASCADE) and follow a rename (ON UPDATE CASCADE).
-- key_rate per key_rate_interval, with key_burst more at once: a token
-- bucket per key (GCRA). fair: picks go round the keys in turn.
CREATE TABLE fetchq.flow_limits (
    queue CHARACTER VARYING(40) PRIMARY KEY
        REFERENCES fetchq.queues (name) ON DELETE CASCADE ON UPDATE CASCADE,
    max_active INTEGER CHECK (max_active > 0),
    key_max_active INTEGER CHECK (key_max_active > 0),
    key_rate INTEGER CHECK (key_rate > 0),
    key_rate_interval INTERVAL NOT NULL DEFAULT '1 second'
        CHECK (key_rate_interval >= interval '1 millisecond'),
    key_burst INTEGER CHECK (key_burst > 0),
    fair BOOLEAN NOT NULL DEFAULT false,
    set_by REGROLE NOT NULL,
    set_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now()
);
ALTER TABLE fetchq.flow_limits ENABLE ROW LEVEL SECURITY;
CREATE POLICY flow_limits_read ON fetchq.flow_limits FOR SELECT USING (true);

-- Per-key exceptions (tiers): NULL takes the queue's value.
CREATE TABLE fetchq.flow_key_limits (
    queue CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE ON UPDATE CASCADE,
    flow_key TEXT NOT NULL,
    key_max_active INTEGER CHECK (key_max_active > 0),
    key_rate INTEGER CHECK (key_rate > 0),
    set_by REGROLE NOT NULL,
    set_at TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT pg_catalog.now(),
    PRIMARY KEY (queue, flow_key)
);
ALTER TABLE fetchq.flow_key_limits ENABLE ROW LEVEL SECURITY;
CREATE POLICY flow_key_limits_read ON fetchq.flow_key_limits FOR SELECT USING (true);

-- Per rate-limited key: when its next pick is due (GCRA's theoretical
-- arrival time), written by the picks in their own transaction, under the
-- key's advisory lock. No role but the owner reads it (row security, no
-- policy); fetchq.flow_keys shows each key's tokens.
CREATE TABLE fetchq.flow_key_rates (
    queue CHARACTER VARYING(40) NOT NULL
        REFERENCES fetchq.queues (name) ON DELETE CASCADE ON UPDATE CASCADE,
    flow_key TEXT NOT NULL,
    next_due TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (queue, flow_key)
);
ALTER TABLE fetchq.flow_key_rates ENABLE ROW LEVEL SECURITY;

SELECT pg_catalog.pg_extension_config_dump('fetchq.flow_limits', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.flow_key_limits', '');
SELECT pg_catalog.pg_extension_config_dump('fetchq.flow_key_rates', '');
