-- The first test: pg_regress made this database for the run. Its scheduler
-- (when the library is preloaded) stays idle, so that the background workers
-- never race the tests of the mnt_* functions; the setting comes before the
-- extension, whose creation starts the scheduler.
DO $$ BEGIN
    EXECUTE format('ALTER DATABASE %I SET fetchq.enabled = off', current_database());
END $$;
SET client_min_messages = warning;
CREATE EXTENSION fetchq;
RESET client_min_messages;
SELECT extversion = (SELECT default_version FROM pg_available_extensions WHERE name = 'fetchq')
    AS installed_default_version
FROM pg_extension WHERE extname = 'fetchq';
