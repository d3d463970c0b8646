/* nb-application.h: the Ncz Browser application */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define NB_APPLICATION_ID "org.ncz.Browser"

#define NB_TYPE_APPLICATION (nb_application_get_type ())
G_DECLARE_FINAL_TYPE (NbApplication, nb_application, NB, APPLICATION, AdwApplication)

NbApplication *nb_application_new (GApplicationFlags extra_flags);
void           nb_application_open_url (NbApplication *self, const char *url);
char          *nb_application_url_from_file (GFile *file);

G_END_DECLS
