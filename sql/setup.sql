-- The first test: pg_regress made this database for the run. Its scheduler
-- (when the library is preloaded) stays idle, so that the background workers
-- never race the tests of the mnt_* functions; the setting comes before the
-- extension, whose creation starts the scheduler.
DO $$ BEGIN
    EXECUTE format('ALTER DATABASE %I SET fetchq.enabled = off', current_database());
END $$;
SET client_min_messages = warning;
CREATE EXTENSION fetchq;
-- The control file's default version was installed. pg_available_extensions
-- reads only the server's own extension directory: the Debian package's test
-- (pg_buildext installcheck, with Debian's extension_destdir) finds no fetchq
-- there on a machine without it installed. The library, built from the same
-- control file, then vouches: its functions refuse to run under the SQL of
-- another version, so info() answering is the check. (Still at warning: not
-- preloaded, as in that package test, the first call notes that no worker runs.)
SELECT extversion = coalesce((SELECT default_version FROM pg_available_extensions
                              WHERE name = 'fetchq'), extversion) AS installed_default_version,
       (SELECT version FROM fetchq.info()) AS api_level
FROM pg_extension WHERE extname = 'fetchq';
RESET client_min_messages;
