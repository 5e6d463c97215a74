# PGXS build of fetchq.so, its install script, and the pg_regress suite.
EXTENSION   = fetchq
EXTVERSION  = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" fetchq.control)

MODULE_big  = fetchq
SRCS        = $(sort $(wildcard src/*.cpp src/core/*.cpp src/pg/*.cpp src/ops/*/*.cpp \
                              src/sql_api/*.cpp src/sql_api/*/*.cpp src/worker/*.cpp))
OBJS        = $(SRCS:.cpp=.o)

# The install script is assembled from one fragment per family of objects:
# the catalog first, then the functions of each src/sql_api family (one
# folder per sub-domain of src/ops).
SQL_PARTS   = $(sort $(wildcard src/schema/*.sql)) $(sort $(wildcard src/sql_api/*/*.sql))
# Updates (src/upgrade/README.md). A released version's update script is
# committed as the tag built it; the one to this version is assembled from
# what the previous release lacks, every function, view, trigger and policy
# again (created or replaced), then the rows the new version keeps otherwise.
UPGRADES_RELEASED = src/upgrade/fetchq--0.1.0--0.2.0.sql
UPGRADE_FROM_0_2_0 = src/upgrade/0.2.0--0.2.1.before.sql \
                     src/schema/05_stream_grants.sql \
                     src/schema/06_doc_dependencies.sql \
                     src/schema/07_schedules.sql \
                     src/schema/08_deferred_counters.sql \
                     src/schema/09_remote_routes.sql \
                     src/schema/10_flow_limits.sql \
                     $(sort $(wildcard src/sql_api/*/*.sql)) \
                     src/upgrade/0.2.0--0.2.1.after.sql
DATA         = $(UPGRADES_RELEASED)
DATA_built   = fetchq--$(EXTVERSION).sql fetchq--0.2.0--0.2.1.sql

# `make installcheck` runs against an installed fetchq on a running server,
# preloaded or not, in databases of its own: the first test of each suite
# (sql/setup.sql, specs/isolation_setup.spec) keeps the database's scheduler idle
# (ALTER DATABASE ... SET fetchq.enabled = off), so that the background
# workers never race the tests of the mnt_* functions, then creates the
# extension. Tests that need the workers are in test/*_test.sh.
REGRESS      = setup $(filter-out setup,$(basename $(notdir $(sort $(wildcard sql/*.sql)))))
override CONTRIB_TESTDB = fetchq_regress
# Isolation tests (specs/*.spec): concurrent sessions.
ISOLATION      = isolation_setup $(filter-out isolation_setup,$(basename $(notdir $(sort $(wildcard specs/*.spec)))))
override ISOLATION_TESTDB = fetchq_isolation

PG_CONFIG  ?= pg_config
PG_CPPFLAGS = -I$(CURDIR)/src -std=c++17 -DFETCHQ_VERSION='"$(EXTVERSION)"'
PG_CXXFLAGS = -std=c++17 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
              -Wno-register -fno-omit-frame-pointer
SHLIB_LINK  = -lstdc++

# Debian builds PostgreSQL --with-llvm: PGXS would also compile every source
# to bitcode with clang, without our C++ flags. We do not ship bitcode.
override with_llvm = no

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)


# PGXS passes CPPFLAGS to both C and C++; -std=c++17 belongs to C++ only.
override CPPFLAGS := $(filter-out -std=c++17,$(CPPFLAGS))
override CXXFLAGS += -std=c++17 -I$(CURDIR)/src

fetchq--$(EXTVERSION).sql: $(SQL_PARTS) fetchq.control
	{ echo "-- fetchq $(EXTVERSION): generated from src/schema and src/sql_api; do not edit."; \
	  printf '%s\n' '\echo Use "CREATE EXTENSION fetchq" to load this file. \quit'; \
	  for f in $(SQL_PARTS); do echo; echo "-- $$f"; cat $$f; done; } > $@

# Statements of src/sql_api that create an object the previous release may
# have are made to replace it (scripts/replaceable.sed).
fetchq--0.2.0--0.2.1.sql: $(UPGRADE_FROM_0_2_0) scripts/replaceable.sed fetchq.control
	{ echo "-- fetchq 0.2.0 to 0.2.1: generated from src/upgrade and src/sql_api; do not edit."; \
	  printf '%s\n' '\echo Use "ALTER EXTENSION fetchq UPDATE" to load this file. \quit'; \
	  for f in $(UPGRADE_FROM_0_2_0); do echo; echo "-- $$f"; \
	    case $$f in src/sql_api/*) sed -f scripts/replaceable.sed $$f;; *) cat $$f;; esac; done; } > $@

$(OBJS): $(wildcard src/*/*.hpp src/*/*/*.hpp)
# The library knows its version (pg/extension_version.cpp).
src/pg/extension_version.o: fetchq.control

.PHONY: unit test demo format
unit:
	cmake -S . -B build/unit -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && \
	cmake --build build/unit -j2 && ctest --test-dir build/unit --output-on-failure

test:
	./scripts/test.sh

demo:
	./scripts/demo.sh

format:
	clang-format -i src/*/*.cpp src/*/*.hpp src/*/*/*.cpp src/*/*/*.hpp test/unit/*.cpp
