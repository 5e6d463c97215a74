# For an update script: the statements of src/sql_api/*.sql that create an
# object replace it when it exists (a policy is dropped first: it has no
# OR REPLACE). Statements start at the beginning of a line there.
s/^CREATE FUNCTION /CREATE OR REPLACE FUNCTION /
s/^CREATE PROCEDURE /CREATE OR REPLACE PROCEDURE /
s/^CREATE VIEW /CREATE OR REPLACE VIEW /
s/^CREATE TRIGGER /CREATE OR REPLACE TRIGGER /
s/^CREATE POLICY \([a-z_]*\) ON \([a-z_.]*\)/DROP POLICY IF EXISTS \1 ON \2;\
&/
