/* fixture-nosym.c: a module without the entry point its manifest implies
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include "../fixture.h"

NCZ_PLUGIN_EXPORT int ncz_fixture_nosym_something_else (void);

int
ncz_fixture_nosym_something_else (void)
{
  return 42;
}
