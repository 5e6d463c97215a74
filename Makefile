# PGXS build of fetchq.so, its install script, and the pg_regress suite.
EXTENSION   = fetchq
EXTVERSION  = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" fetchq.control)

MODULE_big  = fetchq
SRCS        = $(sort $(wildcard src/*.cpp src/core/*.cpp src/pg/*.cpp src/ops/*.cpp src/sql_api/*.cpp src/worker/*.cpp))
OBJS        = $(SRCS:.cpp=.o)

# The install script is assembled from one fragment per family of objects:
# the catalog first, then the functions of each src/sql_api family.
SQL_PARTS   = $(sort $(wildcard src/schema/*.sql)) $(sort $(wildcard src/sql_api/*.sql))
DATA_built  = fetchq--$(EXTVERSION).sql

REGRESS      = $(basename $(notdir $(sort $(wildcard sql/*.sql))))
# scripts/test.sh creates fetchq_regress with the extension and its scheduler off
# (ALTER DATABASE ... SET fetchq.enabled = off), so that the workers never race
# the tests of the mnt_* functions.
REGRESS_OPTS = --use-existing
# PGXS appends --dbname=$(CONTRIB_TESTDB), which it sets itself: override it.
override CONTRIB_TESTDB = fetchq_regress
# Isolation tests (specs/*.spec): concurrent sessions, in the same database.
ISOLATION      = $(basename $(notdir $(sort $(wildcard specs/*.spec))))
ISOLATION_OPTS = --use-existing
override ISOLATION_TESTDB = fetchq_regress

PG_CONFIG  ?= pg_config
PG_CPPFLAGS = -I$(CURDIR)/src -std=c++17
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

$(OBJS): $(wildcard src/*/*.hpp)

.PHONY: unit test demo format
unit:
	cmake -S . -B build/unit -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && \
	cmake --build build/unit -j2 && ctest --test-dir build/unit --output-on-failure

test:
	./scripts/test.sh

demo:
	./scripts/demo.sh

format:
	clang-format -i src/*/*.cpp src/*/*.hpp test/unit/*.cpp
