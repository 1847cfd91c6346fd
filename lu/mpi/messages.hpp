#pragma once
// Error messages that stay one readable line, however long or odd the value
// a user gave: values are echoed capped, and the line itself has no newline
// and a bounded length.
#include <cctype>
#include <string>
#include <string_view>

namespace npblu {

/// Longest part of a value echoed in a message.
inline constexpr std::size_t kEchoedValueLength = 120;  // whole paths of a deep tree, not a 100 kB list
/// Longest message line (a safety net for messages built elsewhere).
inline constexpr std::size_t kMessageLength = 400;

/// 'value' in quotes, cut to kEchoedValueLength characters plus "..." and the
/// full length; control characters shown as \xNN.
inline std::string quote_value(std::string_view value) {
  std::string out = "'";
  for (const char c : value.substr(0, kEchoedValueLength)) {
    const auto u = static_cast<unsigned char>(c);
    if (std::iscntrl(u)) {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  if (value.size() > kEchoedValueLength)
    out += "...' (" + std::to_string(value.size()) + " characters)";
  else
    out += "'";
  return out;
}

/// `message` as one line: newlines become spaces, any quoted word ('...'
/// without spaces, as the parsers echo values) longer than kEchoedValueLength
/// is cut, and the whole line is capped at kMessageLength.
inline std::string one_line_message(std::string_view message) {
  std::string out;
  std::size_t i = 0;
  while (i < message.size()) {
    const std::size_t close = message[i] == '\'' ? message.find('\'', i + 1) : std::string_view::npos;
    // (+ 3: leave a value quote_value has already cut alone)
    if (close != std::string_view::npos && close - i - 1 > kEchoedValueLength + 3 &&
        message.substr(i + 1, close - i - 1).find(' ') == std::string_view::npos) {
      out += quote_value(message.substr(i + 1, close - i - 1));
      i = close + 1;
      continue;
    }
    out += message[i] == '\n' || message[i] == '\r' ? ' ' : message[i];
    ++i;
  }
  if (out.size() > kMessageLength) out = out.substr(0, kMessageLength) + "... (message shortened)";
  return out;
}

}  // namespace npblu
