-- What the Node.js client (fetchq 4.x) does when it starts: it reads
-- fetchq.info() and re-installs its SQL unless the version is 4.0.0.
SELECT * FROM fetchq.info();
-- Called as a scalar, it is the version text.
SELECT fetchq.info();
SELECT fetchq.info() = '4.0.0' AS is_4_0_0;
