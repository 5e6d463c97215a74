-- Known, intended difference in the Node.js client's start-up: it calls
-- fetchq.init() on every start. Fetchq 4 answers false from the second call
-- on (its trigger already exists and the error is swallowed); fetchq has
-- nothing to set up and answers true.
-- The differences are recorded in expected_differences/defects_client.diff.
SELECT * FROM fetchq.init();
SELECT * FROM fetchq.init();
-- fetchq.info() has one more OUT column, extension_version, after version:
-- SELECT * shows both, and called as a scalar it is a record, not the text.
SELECT * FROM fetchq.info();
SELECT fetchq.info();
SELECT fetchq.info() = '4.0.0' AS is_4_0_0;
