/* nb-application.c: the application: app.open(s), windows, about */
#include "nb-application.h"
#include "nb-window.h"
#include "nb-resources.h"

#include <string.h>

struct _NbApplication
{
  AdwApplication parent_instance;
};

G_DEFINE_FINAL_TYPE (NbApplication, nb_application, ADW_TYPE_APPLICATION)

/* What the library is given for a file: its path for a local file (the
 * library infers the store and format), else its URI */
char *
nb_application_url_from_file (GFile *file)
{
  g_return_val_if_fail (G_IS_FILE (file), NULL);
  if (g_file_is_native (file))
    return g_file_get_path (file);
  return g_file_get_uri (file);
}

static NbWindow *
target_window (NbApplication *self)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (self));
  if (NB_IS_WINDOW (window) && !nb_window_get_dataset (NB_WINDOW (window)) &&
      !nb_window_is_loading (NB_WINDOW (window)))
    return NB_WINDOW (window);
  return nb_window_new (GTK_APPLICATION (self));
}

/**
 * nb_application_open_url:
 * @self: the application
 * @url: a path or URL
 *
 * Opens @url in the active window when it shows no dataset, else in a new
 * window, and presents that window.
 */
void
nb_application_open_url (NbApplication *self, const char *url)
{
  NbWindow *window = target_window (self);
  nb_window_open (window, url);
  gtk_window_present (GTK_WINDOW (window));
}

static void
act_open (GSimpleAction *action, GVariant *parameter, gpointer self)
{
  nb_application_open_url (self, g_variant_get_string (parameter, NULL));
}

static void
act_new_window (GSimpleAction *action, GVariant *parameter, gpointer self)
{
  gtk_window_present (GTK_WINDOW (nb_window_new (GTK_APPLICATION (self))));
}

static void
act_about (GSimpleAction *action, GVariant *parameter, gpointer self)
{
  const char *developers[] = { "The Ncz developers", NULL };
  GtkWidget *about = adw_about_window_new ();
  adw_about_window_set_application_name (ADW_ABOUT_WINDOW (about), "Ncz Browser");
  adw_about_window_set_application_icon (ADW_ABOUT_WINDOW (about), NB_APPLICATION_ID);
  adw_about_window_set_version (ADW_ABOUT_WINDOW (about), NB_VERSION);
  adw_about_window_set_comments (ADW_ABOUT_WINDOW (about),
                                 "Browse netCDF-4, Zarr and NCZarr datasets: their structure, "
                                 "metadata, storage and data");
  adw_about_window_set_developers (ADW_ABOUT_WINDOW (about), developers);
  adw_about_window_set_license_type (ADW_ABOUT_WINDOW (about), GTK_LICENSE_BSD_3);
  gtk_window_set_transient_for (GTK_WINDOW (about), gtk_application_get_active_window (self));
  gtk_window_present (GTK_WINDOW (about));
}

static const GActionEntry app_actions[] = {
  { "open", act_open, "s" },
  { "new-window", act_new_window },
  { "about", act_about },
};

static void
nb_application_startup (GApplication *app)
{
  const char *quit[] = { "<Control>q", NULL };
  const char *open[] = { "<Control>o", NULL };
  const char *open_url[] = { "<Control>l", NULL };
  const char *new_window[] = { "<Control>n", NULL };
  const char *close[] = { "<Control>w", NULL };
  G_APPLICATION_CLASS (nb_application_parent_class)->startup (app);
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open-file", open);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open-url", open_url);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.new-window", new_window);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "window.close", close);
  (void) quit;
  gtk_window_set_default_icon_name (NB_APPLICATION_ID);
}

static void
nb_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));
  if (!window)
    window = GTK_WINDOW (nb_window_new (GTK_APPLICATION (app)));
  gtk_window_present (window);
}

static void
nb_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  for (int i = 0; i < n_files; i++)
    {
      g_autofree char *url = nb_application_url_from_file (files[i]);
      nb_application_open_url (NB_APPLICATION (app), url);
    }
}

/* URLs with a #mode= fragment and s3:// URLs are not files: give the
 * library the arguments as written rather than GFile's rendering of them */
static gboolean
nb_application_local_command_line (GApplication *app, char ***arguments, int *exit_status)
{
  char **argv = *arguments;
  int i;
  for (i = 1; argv[i]; i++)
    if (g_str_equal (argv[i], "--help") || g_str_equal (argv[i], "-h"))
      {
        g_print ("Usage: ncz-browser [PATH-OR-URL...]\n\n"
                 "Browse netCDF-4, Zarr and NCZarr datasets.\n"
                 "A PATH-OR-URL is a path (directory store, .zip, .nc), or a file://, s3:// or\n"
                 "https:// URL, with #mode=… where the store needs it.\n");
        *exit_status = 0;
        return TRUE;
      }
  if (!g_application_register (app, NULL, NULL))
    {
      *exit_status = 1;
      return TRUE;
    }
  if (!argv[1])
    g_application_activate (app);
  for (i = 1; argv[i]; i++)
    {
      const char *arg = argv[i];
      g_autofree char *url = NULL;
      if (strstr (arg, "://") || g_path_is_absolute (arg))
        url = g_strdup (arg);
      else
        {
          g_autofree char *cwd = g_get_current_dir ();
          url = g_build_filename (cwd, arg, NULL);
        }
      g_action_group_activate_action (G_ACTION_GROUP (app), "open", g_variant_new_string (url));
    }
  *exit_status = 0;
  return TRUE;
}

static void
nb_application_class_init (NbApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);
  app_class->startup = nb_application_startup;
  app_class->activate = nb_application_activate;
  app_class->open = nb_application_open;
  app_class->local_command_line = nb_application_local_command_line;
}

static void
nb_application_init (NbApplication *self)
{
}

NbApplication *
nb_application_new (GApplicationFlags extra_flags)
{
  /* the resources live in the static library: taking them here keeps
   * them linked into every program using it (their registration runs
   * when the program loads) */
  g_return_val_if_fail (nb_get_resource () != NULL, NULL);
  g_set_application_name ("Ncz Browser");
  return g_object_new (NB_TYPE_APPLICATION,
                       "application-id", NB_APPLICATION_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN | extra_flags,
                       "resource-base-path", "/org/ncz/Browser",
                       NULL);
}
