#include "lu/io/input_file.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "lu/mpi/messages.hpp"

namespace npblu {

std::string read_input_file(const std::string& path, const std::string& kind, std::size_t max_bytes) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw std::runtime_error(quote_value(path) + " is a directory, not a " + kind);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;  // the open's reason (no such file, permission denied)
    throw std::runtime_error("cannot read " + kind + " " + quote_value(path) +
                             (error != 0 ? ": " + std::string(std::strerror(error)) : std::string()));
  }
  std::string text(max_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_bytes)
    throw std::runtime_error(quote_value(path) + " is larger than " +
                             (max_bytes >= (1u << 20) ? std::to_string(max_bytes >> 20) + " MB"
                                                      : std::to_string(max_bytes) + " bytes"));
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (std::string_view(text).substr(0, kByteOrderMark.size()) == kByteOrderMark)
    text.erase(0, kByteOrderMark.size());
  return text;
}

}  // namespace npblu
