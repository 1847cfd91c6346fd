! npblu_status: the status codes every npblu procedure returns in ierr
! (npblu.h's npblu_status), declared once. Modules npblu and npblu_balance
! both re-export them, so a program using both names NPBLU_OK (and the
! others) without ambiguity: it is one entity whichever module it came by.
module npblu_status
  implicit none
  private

  integer, parameter, public :: NPBLU_OK = 0, NPBLU_ERROR_ARGUMENT = 1, NPBLU_ERROR_RUN = 2, &
                                NPBLU_ERROR_NO_RESULT = 3, NPBLU_ERROR_ORDER = 4
end module npblu_status
