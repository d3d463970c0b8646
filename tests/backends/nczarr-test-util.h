/* nczarr-test-util.h: helpers for the NCZarr backend tests
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#pragma once

#include <ncz/ncz.h>

G_BEGIN_DECLS

void nczt_init (void);

NczDataset *nczt_create_mem (NczMemoryStore **store, const char *fragment);
NczDataset *nczt_open_mem (NczMemoryStore *store, const char *fragment,
                           NczOpenFlags flags, GError **error);
char *nczt_get (NczMemoryStore *store, const char *key);
void nczt_put (NczMemoryStore *store, const char *key, const char *text);
void nczt_put_bytes (NczMemoryStore *store, const char *key, gconstpointer data, gsize len);

char *nczt_corpus_path (const char *relpath);
char *nczt_unpack (const char *relpath, const char *subdir);
void nczt_remove_tree (const char *dir);
NczDataset *nczt_open_dir (const char *dir, const char *mode, GError **error);

void nczt_read_all (NczVariable *var, gpointer buffer, gsize size);
char **nczt_read_strings (NczVariable *var);
NczVariable *nczt_var (NczDataset *ds, const char *path);
NczDimension *nczt_dim (NczDataset *ds, const char *path);
char *nczt_attr_text (NczAttribute *attr);

G_END_DECLS
