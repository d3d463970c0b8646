/* main.c: ncz-browser, a desktop browser of netCDF-4, Zarr and NCZarr datasets */
#include "nb-application.h"

int
main (int argc, char **argv)
{
  g_autoptr(NbApplication) app = nb_application_new (G_APPLICATION_DEFAULT_FLAGS);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
