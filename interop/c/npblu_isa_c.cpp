// npblu_isa (npblu.h): the kernels' instruction-set level (lu/isa.hpp).
#include <string>

#include "interop/c/npblu_status.hpp"
#include "lu/isa.hpp"
#include "npblu.h"

int npblu_isa(char* buf, int length) {
  if (length < 0 || (length > 0 && !buf)) return NPBLU_ERROR_ARGUMENT;
  const bool refused = !npblu::isa_error().empty();
  const std::string text = refused ? npblu::isa_error() : npblu::isa_name(npblu::active_isa());
  npblu::c_api::copy_message(text, buf, length);
  return refused ? NPBLU_ERROR_RUN : NPBLU_OK;
}
