// The grants of each stream (fetchq.stream_grants), written by stream_grant
// and stream_revoke as the catalog's owner once the caller was found to own
// the stream (ops/streams/stream_access.hpp reads them). Needs SPI.
#pragma once

#include <cstdint>

#include "core/stream_privilege.hpp"
#include "pg/postgres.hpp"

namespace fetchq::ops {

// Adds `privileges` to what `grantee` holds on the stream, by `grantor`;
// returns what it holds now.
core::StreamPrivilegeMask store_stream_grant(int32_t stream, Oid grantee,
                                             core::StreamPrivilegeMask privileges, Oid grantor);
// Takes `privileges` away (the row goes when nothing is left); returns what
// it still holds.
core::StreamPrivilegeMask remove_stream_grant(int32_t stream, Oid grantee,
                                              core::StreamPrivilegeMask privileges);

// Deletes the grants of roles that no longer exist; returns how many.
int64_t remove_stream_grants_of_dropped_roles();

}  // namespace fetchq::ops
