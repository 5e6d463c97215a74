-- What the Node.js client (fetchq 4.x) does when it starts: it reads the
-- version column of fetchq.info() and re-installs its SQL unless it is 4.0.0.
SELECT version FROM fetchq.info();
