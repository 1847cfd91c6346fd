#pragma once
// Error messages that stay one readable line, however long or odd the value
// a user gave: values are echoed capped, and the line itself has no newline
// and a bounded length.
#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>

namespace npblu {

/// "1 iteration", "3 iterations": a count and its noun, which takes an "s"
/// unless the count is one.
inline std::string counted(long long count, std::string_view noun) {
  return std::to_string(count) + " " + std::string(noun) + (count == 1 ? "" : "s");
}

/// Longest part of a value echoed in a message.
inline constexpr std::size_t kEchoedValueLength = 120;  // whole paths of a deep tree, not a 100 kB list
/// Longest message line (a safety net for messages built elsewhere).
inline constexpr std::size_t kMessageLength = 400;

/// Bytes of the UTF-8 sequence that starts at text[0], or 0 when none does
/// (a stray continuation byte, a bad lead byte, a sequence cut short).
inline std::size_t utf8_sequence_length(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  const std::size_t n = lead >= 0xC2 && lead <= 0xDF   ? 2
                        : lead >= 0xE0 && lead <= 0xEF ? 3
                        : lead >= 0xF0 && lead <= 0xF4 ? 4
                                                       : 0;
  if (n == 0 || text.size() < n) return 0;
  for (std::size_t i = 1; i < n; ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) return 0;
  return n;
}

/// Appends the character at text[0] as a message shows it: UTF-8 as it is,
/// a control character or a byte that is no UTF-8 as \xNN. Returns the
/// bytes consumed.
inline std::size_t append_visible(std::string& out, std::string_view text) {
  const auto u = static_cast<unsigned char>(text[0]);
  const std::size_t sequence = u >= 0x80 ? utf8_sequence_length(text) : 0;
  if (sequence > 0) {
    out += text.substr(0, sequence);
    return sequence;
  }
  if (std::iscntrl(u) || u >= 0x80) {
    static constexpr char hex[] = "0123456789abcdef";
    out += "\\x";
    out += hex[u >> 4];
    out += hex[u & 15];
  } else {
    out += text[0];
  }
  return 1;
}

/// 'value' in quotes, cut to kEchoedValueLength characters plus "..." and the
/// full length; control characters and bytes that are not UTF-8 (a binary
/// file read as text) shown as \xNN, UTF-8 (a name with accents) as it is.
inline std::string quote_value(std::string_view value) {
  std::string out = "'";
  const std::string_view shown = value.substr(0, kEchoedValueLength);
  for (std::size_t i = 0; i < shown.size();) i += append_visible(out, shown.substr(i));
  if (value.size() > kEchoedValueLength)
    out += "...' (" + std::to_string(value.size()) + " characters)";
  else
    out += "'";
  return out;
}

/// `message` as one line: newlines become spaces, other control characters
/// and bytes that are no UTF-8 \xNN, any quoted word ('...'
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
    if (message[i] == '\n' || message[i] == '\r') {
      out += ' ';
      ++i;
    } else {
      i += append_visible(out, message.substr(i));  // a binary file's bytes echoed by a parser
    }
  }
  if (out.size() > kMessageLength) out = out.substr(0, kMessageLength) + "... (message shortened)";
  return out;
}

/// Writes `prefix` and `message` as one line on stderr, in one write: the
/// launcher forwards stdout and stderr through one pipe, and a line written in
/// pieces had a rank's stdout land inside it (CI: the report's header between
/// "lu: warning: " and the warning).
inline void print_line_to_stderr(std::string_view prefix, std::string_view message) {
  std::string line(prefix);
  line += one_line_message(message);
  line += '\n';
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

}  // namespace npblu
