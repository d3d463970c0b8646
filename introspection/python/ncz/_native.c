/* _native.c: reads and writes of NczVariable straight into and out of
 * Python buffers (numpy arrays)
 *
 * ncz._native.read (var, start, count, stride, out) decodes a hyperslab
 * into the memory of @out, any object with the buffer protocol that is
 * writable and C-contiguous; ncz._native.write (var, start, count,
 * stride, data) encodes the memory of @data. Neither copies the values
 * on their way: the library works on the caller's memory, with the GIL
 * released, so other Python threads run (and read) meanwhile. A GError
 * becomes the exception that the factory registered with
 * ncz._native.set_error_factory (domain, code, message) returns.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ncz/ncz.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wcast-function-type"
#pragma GCC diagnostic ignored "-Wredundant-decls"
#pragma GCC diagnostic ignored "-Wshadow"
#include <pygobject.h>
#pragma GCC diagnostic pop

/* The most dimensions a hyperslab may have here (netCDF's NC_MAX_VAR_DIMS) */
#define MAX_DIMS 1024

static PyObject *error_factory;

/* Raises @error (freed) as the factory's exception, or as RuntimeError
 * when none is registered or the factory itself fails. */
static PyObject *
raise_gerror (GError *error)
{
  PyObject *exc = NULL;

  if (error_factory != NULL)
    exc = PyObject_CallFunction (error_factory, "sis",
                                 g_quark_to_string (error->domain),
                                 error->code, error->message);
  if (exc != NULL)
    {
      PyErr_SetObject ((PyObject *) Py_TYPE (exc), exc);
      Py_DECREF (exc);
    }
  else if (!PyErr_Occurred ())
    PyErr_SetString (PyExc_RuntimeError, error->message);
  g_error_free (error);
  return NULL;
}

static NczVariable *
variable_of (PyObject *obj)
{
  GObject *gobj;

  if (!PyObject_TypeCheck (obj, &PyGObject_Type) ||
      (gobj = pygobject_get (obj)) == NULL || !NCZ_IS_VARIABLE (gobj))
    {
      PyErr_Format (PyExc_TypeError, "expected an Ncz.Variable, not %s",
                    Py_TYPE (obj)->tp_name);
      return NULL;
    }
  return NCZ_VARIABLE (gobj);
}

/* A sequence of @what (start, count or stride) into @out; a negative
 * element is refused unless @is_signed. None is no array (n = 0). */
static gboolean
parse_sizes (PyObject *seq, const char *what, gboolean is_signed,
             guint64 *out, guint *n)
{
  PyObject *fast;
  Py_ssize_t len;

  *n = 0;
  if (seq == Py_None)
    return TRUE;
  fast = PySequence_Fast (seq, "");
  if (fast == NULL)
    {
      PyErr_Format (PyExc_TypeError, "%s must be a sequence of integers", what);
      return FALSE;
    }
  len = PySequence_Fast_GET_SIZE (fast);
  if (len > MAX_DIMS)
    {
      PyErr_Format (PyExc_ValueError, "%s has %zd elements, more than %d",
                    what, len, MAX_DIMS);
      Py_DECREF (fast);
      return FALSE;
    }
  for (Py_ssize_t i = 0; i < len; i++)
    {
      PyObject *item = PySequence_Fast_GET_ITEM (fast, i);
      long long v = PyLong_AsLongLong (item);

      if (v == -1 && PyErr_Occurred ())
        {
          PyErr_Clear ();
          PyErr_Format (PyExc_TypeError, "%s[%zd] is not an integer", what, i);
          Py_DECREF (fast);
          return FALSE;
        }
      if (v < 0 && !is_signed)
        {
          PyErr_Format (PyExc_ValueError, "%s[%zd] is negative (%lld)", what, i, v);
          Py_DECREF (fast);
          return FALSE;
        }
      out[i] = (guint64) v;
    }
  *n = (guint) len;
  Py_DECREF (fast);
  return TRUE;
}

typedef struct {
  guint64 start[MAX_DIMS], count[MAX_DIMS], stride[MAX_DIMS];
  guint n_start, n_count, n_stride;
} Hyperslab;

static gboolean
parse_hyperslab (PyObject *start, PyObject *count, PyObject *stride, Hyperslab *h)
{
  return parse_sizes (start, "start", FALSE, h->start, &h->n_start) &&
         parse_sizes (count, "count", FALSE, h->count, &h->n_count) &&
         parse_sizes (stride, "stride", TRUE, h->stride, &h->n_stride);
}

/* The buffer must hold the hyperslab exactly: a larger one would be
 * partly left as it was, silently. */
static gboolean
check_size (NczVariable *var, const Hyperslab *h, const Py_buffer *view)
{
  NczDataType type = ncz_variable_get_value_type (var);
  guint64 n = 1;

  if (type == NCZ_DATA_TYPE_STRING)
    {
      PyErr_Format (PyExc_TypeError, "variable '%s' holds strings, not numbers",
                    ncz_variable_get_name (var));
      return FALSE;
    }
  for (guint i = 0; i < h->n_count; i++)
    n *= h->count[i];
  if (n > G_MAXUINT64 / 8 || (guint64) view->len != n * ncz_data_type_get_size (type))
    {
      PyErr_Format (PyExc_ValueError,
                    "the buffer holds %zd bytes, the hyperslab of '%s' %" G_GUINT64_FORMAT
                    " elements of %zu bytes", view->len, ncz_variable_get_name (var), n,
                    ncz_data_type_get_size (type));
      return FALSE;
    }
  return TRUE;
}

PyDoc_STRVAR (read_doc,
"read(var, start, count, stride, out)\n\n"
"Reads the hyperslab (start, count, stride; stride may be None) of the\n"
"Ncz.Variable var into out, a writable C-contiguous buffer of exactly\n"
"the hyperslab's size in var's element type, with the GIL released.");

/* read() and write(): the hyperslab of the variable to or from the
 * memory of @buffer_obj (writable for a read), checked to be exactly its
 * size, with the GIL released during the transfer. */
static PyObject *
transfer (PyObject *args, gboolean writing)
{
  PyObject *var_obj, *start, *count, *stride, *buffer_obj;
  NczVariable *var;
  Hyperslab *h;
  Py_buffer view;
  GError *error = NULL;
  gboolean ok;

  if (!PyArg_ParseTuple (args, writing ? "OOOOO:write" : "OOOOO:read",
                         &var_obj, &start, &count, &stride, &buffer_obj))
    return NULL;
  if ((var = variable_of (var_obj)) == NULL)
    return NULL;
  h = g_new (Hyperslab, 1);
  if (!parse_hyperslab (start, count, stride, h))
    {
      g_free (h);
      return NULL;
    }
  if (PyObject_GetBuffer (buffer_obj, &view,
                          writing ? PyBUF_C_CONTIGUOUS
                                  : PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0)
    {
      g_free (h);
      return NULL;
    }
  if (!check_size (var, h, &view))
    {
      PyBuffer_Release (&view);
      g_free (h);
      return NULL;
    }
  g_object_ref (var);
  Py_BEGIN_ALLOW_THREADS
  if (writing)
    ok = ncz_variable_write (var, h->start, h->n_start, h->count, h->n_count,
                             h->n_stride ? (const gint64 *) h->stride : NULL, h->n_stride,
                             view.buf, (gsize) view.len, NULL, &error);
  else
    ok = ncz_variable_read (var, h->start, h->n_start, h->count, h->n_count,
                            h->n_stride ? (const gint64 *) h->stride : NULL, h->n_stride,
                            view.buf, (gsize) view.len, NULL, &error);
  Py_END_ALLOW_THREADS
  g_object_unref (var);
  PyBuffer_Release (&view);
  g_free (h);
  if (!ok)
    return raise_gerror (error);
  Py_RETURN_NONE;
}

static PyObject *
native_read (PyObject *self, PyObject *args)
{
  (void) self;
  return transfer (args, FALSE);
}

PyDoc_STRVAR (write_doc,
"write(var, start, count, stride, data)\n\n"
"Writes data, a C-contiguous buffer of exactly the hyperslab's size in\n"
"var's element type, to the hyperslab (start, count, stride; stride may\n"
"be None) of the Ncz.Variable var, with the GIL released.");

static PyObject *
native_write (PyObject *self, PyObject *args)
{
  (void) self;
  return transfer (args, TRUE);
}

PyDoc_STRVAR (set_error_factory_doc,
"set_error_factory(factory)\n\n"
"factory(domain, code, message) returns the exception raised for a\n"
"GError of that domain (its quark's string), code and message.");

static PyObject *
native_set_error_factory (PyObject *self, PyObject *factory)
{
  (void) self;
  if (!PyCallable_Check (factory))
    {
      PyErr_SetString (PyExc_TypeError, "the error factory must be callable");
      return NULL;
    }
  Py_INCREF (factory);
  Py_XSETREF (error_factory, factory);
  Py_RETURN_NONE;
}

static PyMethodDef native_methods[] = {
  { "read", native_read, METH_VARARGS, read_doc },
  { "write", native_write, METH_VARARGS, write_doc },
  { "set_error_factory", native_set_error_factory, METH_O, set_error_factory_doc },
  { NULL, NULL, 0, NULL },
};

static struct PyModuleDef native_module = {
  PyModuleDef_HEAD_INIT,
  .m_name = "ncz._native",
  .m_doc = "Reads and writes of Ncz variables into and out of Python buffers.",
  .m_size = -1,
  .m_methods = native_methods,
};

PyMODINIT_FUNC PyInit__native (void);

PyMODINIT_FUNC
PyInit__native (void)
{
  PyObject *gobject = pygobject_init (3, 0, 0);

  if (gobject == NULL)
    return NULL;
  Py_DECREF (gobject);
  return PyModule_Create (&native_module);
}
