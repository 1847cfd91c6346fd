#include <npblu.h>

#include <cstdio>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  npblu_solver* lu = nullptr;
  int verified = 0;
  int status = npblu_create(&lu, MPI_COMM_WORLD);
  if (status == NPBLU_OK) status = npblu_set_class(lu, 'S');
  if (status == NPBLU_OK) status = npblu_set_report(lu, 0);
  if (status == NPBLU_OK) status = npblu_run(lu);
  if (status == NPBLU_OK) status = npblu_verified(lu, &verified);
  if (status != NPBLU_OK) std::printf("error: %s\n", npblu_error_message(lu));
  npblu_destroy(&lu);
  MPI_Finalize();
  std::printf("downstream C++: class S %s\n", verified ? "verified" : "NOT verified");
  return verified ? 0 : 1;
}
