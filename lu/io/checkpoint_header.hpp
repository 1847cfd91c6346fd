#pragma once
// The checkpoint header's attributes, in one table (checkpoint_header.cpp):
// how each is written, read, and serialised canonically for its checksum.
// The writer stores one 64-bit digest per attribute in "header_checksums"
// ("name=hex" strings); the reader recomputes each from the values it read
// and refuses the file naming the first attribute that differs, then checks
// every value's range, naming the attribute. Together with field_checksum
// (one of the attributes) every byte of a checkpoint is checked.
//
// Adding an attribute: one row in kHeaderAttributes (checkpoint_header.cpp)
// and its member in CheckpointHeader; the checksums then cover it.
#include <hdf5.h>

#include <string>
#include <string_view>

#include "lu/io/checkpoint_file.hpp"

namespace npblu {

/// Writes every attribute of the table but field_checksum and header_checksums.
void write_header_attributes(hid_t file, const CheckpointHeader& h);
/// Writes field_checksum (h's) and header_checksums over every attribute: the commit.
void write_header_checksums(hid_t file, const CheckpointHeader& h);
/// Reads every attribute, checks the checksums and the values; throws
/// std::runtime_error naming the attribute at fault.
CheckpointHeader read_header_attributes(hid_t file);

/// Every attribute's canonical bytes, in the table's order (what rank 0
/// broadcasts of a header it read), and their inverse.
std::string header_bytes(const CheckpointHeader& h);
CheckpointHeader header_from_bytes(std::string_view bytes);

}  // namespace npblu
