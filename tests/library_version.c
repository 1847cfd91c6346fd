/* npblu_version() at run time, npblu.h's NPBLU_VERSION_* and CMake's project version (read from
 * npblu.h, passed as NPBLU_PROJECT_VERSION) all agree with two sources that do not come from
 * npblu.h: tests/expected_version.txt (argv[1], written by hand: bumping the version means
 * changing it too) and the file name of the shared library this program loads (argv[2],
 * libnpblu.so.X.Y.Z, the version the library was linked as). */
#include <npblu.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: library_version EXPECTED_VERSION_FILE LIBRARY_FILE\n");
    return 1;
  }
  char expected[64] = "";
  FILE* f = fopen(argv[1], "r");
  if (!f || fscanf(f, "%63s", expected) != 1) return 1;
  fclose(f);
  int major = -1, minor = -1, patch = -1;
  if (npblu_version(&major, &minor, &patch) != NPBLU_OK) return 1;
  char from_library[64], from_header[64], file_suffix[80];
  snprintf(from_library, sizeof from_library, "%d.%d.%d", major, minor, patch);
  snprintf(from_header, sizeof from_header, "%d.%d.%d", NPBLU_VERSION_MAJOR, NPBLU_VERSION_MINOR,
           NPBLU_VERSION_PATCH);
  snprintf(file_suffix, sizeof file_suffix, ".so.%s", expected);
  const size_t n = strlen(argv[2]), m = strlen(file_suffix);
  const int file_matches = n >= m && strcmp(argv[2] + n - m, file_suffix) == 0;
  printf("expected %s, library %s, header %s, project %s, library file %s\n", expected, from_library,
         from_header, NPBLU_PROJECT_VERSION, argv[2]);
  if (npblu_version(NULL, NULL, NULL) != NPBLU_OK) return 1;
  return strcmp(from_library, expected) == 0 && strcmp(from_header, expected) == 0 &&
                 strcmp(NPBLU_PROJECT_VERSION, expected) == 0 && file_matches
             ? 0
             : 1;
}
