#!/usr/bin/python3
# test-s3-browser.py: Ncz Browser on S3 (the gateway radosgw-run
# started), printing TAP. ncz-gen writes one dataset as NCZarr and as
# pure Zarr into a bucket; the browser's test program
# (tests/browser/test-browser.c, its /browser/remote case) runs under
# xvfb-run with their URLs: it opens each through app.open, checks the
# tree and the format, selects the 2-D variable in a group, waits for the
# data view's full picture and renders the window to a PNG. The PNGs are
# kept in the --browser-output directory (the build's tests/s3/browser).
#
#   test-s3-browser.py NCZ-DUMP NCZ-COPY NCZ-GEN WRITE-ALL \
#       [--test-browser=PATH --xvfb-run=PATH --browser-output=DIR]
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import s3common as s3  # noqa: E402


def opt(name):
    for a in sys.argv[1:]:
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return None


s3.require_server()
if os.environ.get("NCZ_TEST_S3_HAVE_STORE") != "1":
    print("1..0 # SKIP no s3 store module (storage-drivers/s3 not built)")
    sys.exit(77)
TEST_BROWSER = opt("--test-browser")
XVFB_RUN = opt("--xvfb-run")
OUTPUT = opt("--browser-output")
if not TEST_BROWSER or not os.path.exists(TEST_BROWSER):
    print("1..0 # SKIP the browser is not built (no tests/browser/test-browser)")
    sys.exit(77)
if not XVFB_RUN or not os.path.exists(XVFB_RUN):
    print("1..0 # SKIP no xvfb-run")
    sys.exit(77)
NCZ_GEN = sys.argv[3]

NT, NY, NX = 3, 40, 60
VARIABLES = ["/temperature", "/lat", "/forecast", "/forecast/pressure"]
SELECT = "/forecast/pressure"


def cdl():
    temp = ", ".join(f"{250 + x * 0.5 + y * 0.25 + t:g}"
                     for t in range(NT) for y in range(NY) for x in range(NX))
    pres = ", ".join(str(1000 + (x - NX // 2) ** 2 + (y - NY // 2) ** 2)
                     for y in range(NY) for x in range(NX))
    lat = ", ".join(f"{-60 + 3 * y:g}" for y in range(NY))
    return f"""netcdf browse {{
dimensions:
  time = {NT} ;
  y = {NY} ;
  x = {NX} ;
variables:
  float temperature(time, y, x) ;
    temperature:units = "K" ;
    temperature:_ChunkSizes = 1, 20, 30 ;
  double lat(y) ;
// global attributes:
  :title = "Browser on S3" ;
data:
  temperature = {temp} ;
  lat = {lat} ;

group: forecast {{
variables:
  int pressure(y, x) ;
    pressure:units = "hPa" ;
    pressure:_ChunkSizes = 20, 30 ;
data:
  pressure = {pres} ;
}}
}}
"""


def main():
    tap = s3.Tap()
    env = s3.clean_env()
    tmp = tempfile.mkdtemp(prefix="ncz-s3-browser-")
    client = s3.boto3_client()
    bucket = s3.create_bucket(client, s3.unique_bucket("browser"))
    try:
        cdl_path = os.path.join(tmp, "browse.cdl")
        with open(cdl_path, "w") as f:
            f.write(cdl())
        urls = []
        for mode in ("nczarr", "zarr"):
            url = s3.s3_url(bucket, f"browse.{mode}", mode)
            r = subprocess.run([NCZ_GEN, "-o", url, cdl_path], capture_output=True, text=True,
                               env=env, timeout=300)
            if tap.ok(r.returncode == 0, f"ncz-gen writes the {mode} dataset to {url}",
                      r.stderr):
                urls.append(url)
        keys = s3.list_keys(client, bucket)
        tap.ok(any(k.startswith("browse.nczarr/") for k in keys) and
               any(k.startswith("browse.zarr/") for k in keys),
               "both datasets are objects in the bucket", "\n".join(keys))
        if not urls:
            return tap.done()

        out_dir = OUTPUT or os.path.join(tmp, "png")
        os.makedirs(out_dir, exist_ok=True)
        for i in range(len(urls)):
            p = os.path.join(out_dir, f"remote-{i}.png")
            if os.path.exists(p):
                os.unlink(p)
        benv = dict(env)
        benv.update({
            "NCZ_BROWSER_TEST_URLS": "\n".join(urls),
            "NCZ_BROWSER_TEST_VARIABLES": ",".join(VARIABLES),
            "NCZ_BROWSER_TEST_SELECT": SELECT,
            "NB_TEST_OUTPUT_DIR": out_dir,
            # what tests/browser/meson.build sets for the browser test
            "GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "GSETTINGS_BACKEND": "memory",
            "GSETTINGS_SCHEMA_DIR": "/usr/share/glib-2.0/schemas", "GTK_A11Y": "none",
            "NO_AT_BRIDGE": "1", "ADW_DISABLE_PORTAL": "1",
        })
        argv = [XVFB_RUN, "-a", "-s", "-screen 0 1800x1050x24 -nolisten tcp",
                TEST_BROWSER, "--tap", "-p", "/browser/remote"]
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           errors="replace", env=benv, timeout=600)
        lines = r.stdout.splitlines()
        case = [x for x in lines if x.startswith(("ok ", "not ok ")) and "/browser/remote" in x]
        tap.ok(r.returncode == 0 and len(case) == 1 and case[0].startswith("ok ") and
               "# SKIP" not in case[0],
               "test-browser /browser/remote opens, shows and draws both S3 datasets",
               f"exit {r.returncode}\n" + "\n".join(x for x in lines
                                                    if "GLib-GIO-DEBUG" not in x)[-4000:])
        for x in lines:
            if x.startswith("# opening ") or x.startswith("# window rendered"):
                tap.note(x[2:])
        for i, url in enumerate(urls):
            p = os.path.join(out_dir, f"remote-{i}.png")
            head = b""
            if os.path.exists(p):
                with open(p, "rb") as f:
                    head = f.read(8)
            tap.ok(head == b"\x89PNG\r\n\x1a\n", f"the window of {url} is drawn to {p}")
        if OUTPUT is None:
            tap.note("(the PNGs were in a temporary directory: pass --browser-output to "
                     "keep them)")
    finally:
        s3.remove_bucket(client, bucket)
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
