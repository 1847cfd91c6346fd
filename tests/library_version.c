/* npblu_version() agrees with npblu.h's NPBLU_VERSION_* and with the
 * project's version (CMake's project(VERSION), passed as NPBLU_PROJECT_VERSION). */
#include <npblu.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  int major = -1, minor = -1, patch = -1;
  if (npblu_version(&major, &minor, &patch) != NPBLU_OK) return 1;
  char from_library[64], from_header[64];
  snprintf(from_library, sizeof from_library, "%d.%d.%d", major, minor, patch);
  snprintf(from_header, sizeof from_header, "%d.%d.%d", NPBLU_VERSION_MAJOR, NPBLU_VERSION_MINOR,
           NPBLU_VERSION_PATCH);
  printf("library %s, header %s, project %s\n", from_library, from_header, NPBLU_PROJECT_VERSION);
  if (npblu_version(NULL, NULL, NULL) != NPBLU_OK) return 1;
  return strcmp(from_library, from_header) == 0 && strcmp(from_header, NPBLU_PROJECT_VERSION) == 0 ? 0 : 1;
}
