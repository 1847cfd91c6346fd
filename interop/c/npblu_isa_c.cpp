// npblu_isa (npblu.h): the kernels' instruction-set level (lu/isa.hpp).
#include <algorithm>
#include <cstring>
#include <string>

#include "lu/isa.hpp"
#include "npblu.h"

int npblu_isa(char* buf, int length) {
  if (length < 0 || (length > 0 && !buf)) return NPBLU_ERROR_ARGUMENT;
  const bool refused = !npblu::isa_error().empty();
  const std::string text = refused ? npblu::isa_error() : npblu::isa_name(npblu::active_isa());
  if (length > 0) {
    const std::size_t n = std::min(text.size(), std::size_t(length - 1));
    std::memcpy(buf, text.data(), n);
    buf[n] = '\0';
  }
  return refused ? NPBLU_ERROR_RUN : NPBLU_OK;
}
