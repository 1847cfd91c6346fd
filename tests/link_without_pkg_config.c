/* c-api.md: npblu.h gives both APIs, the solver's and the balancer's, linked with `-lnpblu
 * -lnpblu_balance` as the page says, without pkg-config; calls one function of each library. */
#include <npblu.h>
#include <stdio.h>

int main(void) {
  int major = -1, minor = -1, patch = -1;
  npblu_balance_settings settings;
  if (npblu_version(&major, &minor, &patch) != NPBLU_OK) return 1;
  if (npblu_balance_settings_default(&settings) != NPBLU_OK || settings.every < 1) return 1;
  printf("-lnpblu -lnpblu_balance: npblu %d.%d.%d, balance every %d by default\n", major, minor, patch,
         settings.every);
  return 0;
}
