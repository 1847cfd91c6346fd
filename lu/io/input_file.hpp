#pragma once
// A small text file a user names (a weights file, a speeds file): read whole,
// with the system's reason when it cannot be, and without the byte-order mark
// some editors write first (invisible in a message, it made the first line
// "not a number").
#include <cstddef>
#include <string>

namespace npblu {

/// The most a user's input file may hold: one weight or speed per rank fits in far less.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{64} << 20;

/// The text of `path`, a UTF-8 byte-order mark dropped. Throws
/// std::runtime_error naming `path` as a `kind` ("weights file"): a
/// directory, a file that cannot be read (and why), or one larger than
/// `max_bytes` (a cap that keeps /dev/zero from filling memory).
std::string read_input_file(const std::string& path, const std::string& kind,
                            std::size_t max_bytes = kMaxInputFileBytes);

}  // namespace npblu
