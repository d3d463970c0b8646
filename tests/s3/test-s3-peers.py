#!/usr/bin/python3
# The S3 store and the tools of the ecosystem on one bucket, printing TAP:
#  - the server rejects a wrong secret (SignatureDoesNotMatch) and an
#    unknown key id (InvalidAccessKeyId), seen with boto3: what the
#    store's tests rely on;
#  - a dataset uploaded with Debian's awscli (`aws s3 cp --recursive`)
#    opens in Ncz and dumps as the original;
#  - a dataset Ncz writes to S3 (ncz-copy from a file dataset) is
#    downloaded with awscli and read by zarr-python (values checked);
#  - GDAL's Zarr driver reads the dataset Ncz wrote through /vsis3/.
#
#   test-s3-peers.py NCZ-DUMP NCZ-COPY NCZ-GEN WRITE-ALL
#
# Without the S3 store module (NCZ_TEST_S3_HAVE_STORE unset) the peers
# still read what awscli uploaded from a file dataset Ncz wrote, so the
# awscli, zarr-python and GDAL sides are checked; Ncz's side is skipped.
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s3common as s3  # noqa: E402

s3.require_server()
NCZ_DUMP, NCZ_COPY, NCZ_GEN, WRITE_ALL = sys.argv[1:5]
HAVE_STORE = os.environ.get("NCZ_TEST_S3_HAVE_STORE") == "1"
TMP = tempfile.mkdtemp(prefix="ncz-s3-peers-")
ENV = s3.clean_env()
T = s3.Tap()

NT, NY, NX = 6, 5, 7


def temp_value(t, y, x):
    return (t * 1000 + y * 37 + x * 11) % 30011 - 500


def height_value(y, x):
    return y * 0.25 + x * 1.5 - 3.0


def cdl():
    temps = ", ".join(str(temp_value(t, y, x))
                      for t in range(NT) for y in range(NY) for x in range(NX))
    heights = ", ".join(repr(height_value(y, x)) for y in range(NY) for x in range(NX))
    return f"""netcdf peers {{
dimensions:
  t = {NT} ;
  y = {NY} ;
  x = {NX} ;
variables:
  int temp(t, y, x) ;
    temp:_ChunkSizes = 2, 3, 4 ;
    temp:units = "K" ;
  float height(y, x) ;
    height:_ChunkSizes = 5, 7 ;
data:
  temp = {temps} ;
  height = {heights} ;
}}
"""


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=600, **kw)


def dump(url):
    r = run([NCZ_DUMP, "-s", url])
    if r.returncode != 0:
        return "ncz-dump failed: " + r.stderr
    return r.stdout.split("\n", 1)[1] if "\n" in r.stdout else r.stdout


def check_zarr_python(path, what):
    """zarr-python opens the downloaded directory; the values are checked."""
    code = f"""
import sys, zarr, numpy as np
g = zarr.open_group({path!r}, mode="r")
t = g["temp"][...]
h = g["height"][...]
exp_t = np.array([[[({1000}*a + 37*b + 11*c) % 30011 - 500 for c in range({NX})]
                   for b in range({NY})] for a in range({NT})], dtype="i4")
exp_h = np.array([[b * 0.25 + c * 1.5 - 3.0 for c in range({NX})] for b in range({NY})],
                 dtype="f4")
assert t.shape == ({NT}, {NY}, {NX}), t.shape
assert g["temp"].chunks == (2, 3, 4), g["temp"].chunks
assert (t == exp_t).all(), "temp differs"
assert (h == exp_h).all(), "height differs"
print("ok", t.sum())
"""
    r = run(["/usr/bin/python3", "-c", code])
    T.ok(r.returncode == 0, f"zarr-python reads {what} downloaded with awscli",
         r.stdout + r.stderr)


def check_gdal(bucket, key, what):
    """GDAL's Zarr driver reads the dataset through /vsis3/."""
    genv = dict(ENV)
    genv.update({"AWS_S3_ENDPOINT": s3.host_port(), "AWS_HTTPS": "NO",
                 "AWS_VIRTUAL_HOSTING": "FALSE", "AWS_ACCESS_KEY_ID": s3.ACCESS_KEY,
                 "AWS_SECRET_ACCESS_KEY": s3.SECRET_KEY, "AWS_REGION": "us-east-1",
                 })
    code = f"""
import numpy as np
from osgeo import gdal
gdal.UseExceptions()
ds = gdal.OpenEx('ZARR:"/vsis3/{bucket}/{key}"', gdal.OF_MULTIDIM_RASTER)
rg = ds.GetRootGroup()
names = sorted(rg.GetMDArrayNames())
assert "temp" in names and "height" in names, names
t = rg.OpenMDArray("temp").ReadAsArray()
h = rg.OpenMDArray("height").ReadAsArray()
exp_t = np.array([[[(1000*a + 37*b + 11*c) % 30011 - 500 for c in range({NX})]
                   for b in range({NY})] for a in range({NT})], dtype="i4")
exp_h = np.array([[b * 0.25 + c * 1.5 - 3.0 for c in range({NX})] for b in range({NY})],
                 dtype="f4")
assert t.shape == ({NT}, {NY}, {NX}), t.shape
assert (t == exp_t).all(), "temp differs"
assert (h == exp_h).all(), "height differs"
print("ok", names)
"""
    r = subprocess.run(["/usr/bin/python3", "-c", code], capture_output=True, text=True,
                       env=genv, timeout=600)
    T.ok(r.returncode == 0, f"GDAL's Zarr driver reads {what} through /vsis3/",
         r.stdout + r.stderr)


def main():
    client = s3.boto3_client()

    # -- the server checks signatures (what the store's tests rely on)
    bucket = s3.create_bucket(client, s3.unique_bucket("peers"))
    client.put_object(Bucket=bucket, Key="probe", Body=b"x")
    for what, kw, code in (("a wrong secret", {"secret": s3.SECRET_KEY[:-1] + "Z"},
                            "SignatureDoesNotMatch"),
                           ("an unknown key id", {"key_id": "NCZNOSUCHKEY00000000"},
                            "InvalidAccessKeyId")):
        bad = s3.boto3_client(**kw)
        try:
            bad.get_object(Bucket=bucket, Key="probe")
            T.ok(False, f"the server rejects {what}", "the GET succeeded")
        except bad.exceptions.ClientError as e:
            got = e.response.get("Error", {}).get("Code")
            T.ok(got == code and e.response["ResponseMetadata"]["HTTPStatusCode"] == 403,
                 f"the server rejects {what} ({code})", f"got {got}")

    # -- the dataset, written by Ncz to a directory
    src = os.path.join(TMP, "src.zarr")
    cdl_path = os.path.join(TMP, "peers.cdl")
    with open(cdl_path, "w") as f:
        f.write(cdl())
    r = run([NCZ_GEN, "-o", f"file://{src}#mode=nczarr,file", cdl_path])
    if not T.ok(r.returncode == 0, "ncz-gen writes the dataset to a directory", r.stderr):
        return
    want = dump(f"file://{src}#mode=nczarr,file")

    # -- awscli uploads it; Ncz opens the upload
    r = s3.aws(["s3", "cp", "--recursive", "--only-show-errors", src,
                f"s3://{bucket}/uploaded.zarr"], ENV)
    T.ok(r.returncode == 0, "aws s3 cp --recursive uploads the directory", r.stderr)
    keys = s3.list_keys(client, bucket, "uploaded.zarr/")
    T.ok("uploaded.zarr/temp/.zarray" in keys and "uploaded.zarr/temp/2.1.1" in keys,
         "the upload holds the metadata and chunk objects", keys)
    if HAVE_STORE:
        for url in (s3.s3_url(bucket, "uploaded.zarr"),
                    f"http://{bucket}.localhost:{s3.port()}/uploaded.zarr#mode=nczarr,s3",
                    f"s3://{bucket}/uploaded.zarr#mode=nczarr,s3&endpoint={s3.ENDPOINT}"):
            got = dump(url)
            T.ok(got == want, f"Ncz opens what awscli uploaded: {url}",
                 f"--- want\n{want}\n--- got\n{got}")
    else:
        T.skip("Ncz opens what awscli uploaded", "no s3 store module")

    # -- Ncz writes it to S3; awscli downloads; zarr-python and GDAL read
    if HAVE_STORE:
        key = "written.zarr"
        r = run([NCZ_COPY, f"file://{src}#mode=nczarr,file", s3.s3_url(bucket, key)])
        T.ok(r.returncode == 0, "ncz-copy writes the dataset to S3", r.stderr)
        got = dump(s3.s3_url(bucket, key))
        T.ok(got == want, "the S3 copy dumps as the original",
             f"--- want\n{want}\n--- got\n{got}")
        what = "what Ncz wrote to S3"
    else:
        key = "uploaded.zarr"
        what = "Ncz's file dataset uploaded with awscli (no s3 store module)"
    down = os.path.join(TMP, "down.zarr")
    r = s3.aws(["s3", "cp", "--recursive", "--only-show-errors", f"s3://{bucket}/{key}", down],
               ENV)
    T.ok(r.returncode == 0 and os.path.isfile(os.path.join(down, "temp", ".zarray")),
         "aws s3 cp --recursive downloads the dataset", r.stderr)
    check_zarr_python(down, what)
    check_gdal(bucket, key, what)

    # a plain Zarr dataset too (what zarr-python and GDAL read best)
    if HAVE_STORE:
        r = run([NCZ_COPY, f"file://{src}#mode=nczarr,file", s3.s3_url(bucket, "plain.zarr",
                                                                       mode="zarr")])
        T.ok(r.returncode == 0, "ncz-copy writes a plain Zarr dataset to S3", r.stderr)
        check_gdal(bucket, "plain.zarr", "a plain Zarr dataset Ncz wrote to S3")
        down2 = os.path.join(TMP, "plain.zarr")
        r = s3.aws(["s3", "cp", "--recursive", "--only-show-errors",
                    f"s3://{bucket}/plain.zarr", down2], ENV)
        T.ok(r.returncode == 0, "aws s3 cp downloads the plain Zarr dataset", r.stderr)
        check_zarr_python(down2, "a plain Zarr dataset Ncz wrote to S3")

    s3.remove_bucket(client, bucket)
    try:
        client.head_bucket(Bucket=bucket)
        T.ok(False, "the test's bucket is removed")
    except client.exceptions.ClientError:
        T.ok(True, "the test's bucket is removed")


try:
    main()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
sys.exit(T.done())
