#!/usr/bin/python3
# test-ncz-inspect.py: ncz-inspect-1.0 with the Debian HDF5 filter plugins
#
# Usage: test-ncz-inspect.py NCZ_INSPECT_EXE [LZF_CODEC_LIBRARY]
#
# Makes a directory of symbolic links to the HDF5 filter plugins of the
# Debian packages hdf5-filter-plugin (bzip2, lz4), hdf5-plugin-lzf,
# hdf5-filter-plugin-blosc-serial and hdf5-filter-plugin-zfp-serial (found
# with dpkg -L), plus libraries that must be skipped with a reason (an
# empty file, a text file, a shared library that is no filter, one of
# Ncz's own codec modules), runs ncz-inspect-1.0 with HDF5_PLUGIN_PATH set
# to it, and checks the pairing table of --foreign --json row by row, the
# text listing, --paths, details of a foreign filter and of every codec
# module (HDF5 id, codec JSON example that numcodecs accepts, the HDF5
# and netcdf-c ABIs the module exports), and --exists. With
# LZF_CODEC_LIBRARY (Ncz's Codec-only library for HDF5 filter 32000) in
# the directory too, Debian's HDF5-only LZF filter must become usable.
#
# Output is TAP. Without dpkg or the packages, the checks needing them
# are skipped.
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import os
import shutil
import subprocess
import sys
import tempfile

PACKAGES = ["hdf5-filter-plugin", "hdf5-plugin-lzf", "hdf5-filter-plugin-blosc-serial",
            "hdf5-filter-plugin-zfp-serial"]

# Library file name -> HDF5 filter id, for the filter plugins of those
# packages (the H5Z_class2_t ids the libraries return).
KNOWN_FILTERS = {
    "libh5bz2.so": 307,
    "libh5lz4.so": 32004,
    "libH5Zblosc.so": 32001,
    "libh5zzfp.so": 32013,
    "liblzf_filter.so": 32000,
    "libh5bshuf.so": 32008,
}
# Libraries of those packages that are no filter plugin.
NOT_FILTERS = {"libblosc_filter.so"}


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, name, diag=None):
        self.n += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, name))
        if not cond:
            self.failed += 1
            for line in str(diag or "").splitlines()[:40]:
                print("# " + line)
        sys.stdout.flush()
        return cond

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, why))

    def done(self):
        print("1..%d" % self.n)
        return 1 if self.failed else 0


def debian_plugins():
    """The serial HDF5 filter plugin files of the packages."""
    found = []
    for pkg in PACKAGES:
        try:
            p = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True)
        except OSError:
            return found
        if p.returncode != 0:
            continue
        for line in p.stdout.splitlines():
            if "/serial/" in line and line.endswith(".so") and os.path.isfile(line):
                found.append(line)
    return found


def inspect(exe, args, env):
    print("# $ %s %s" % (os.path.basename(exe), " ".join(args)), flush=True)
    p = subprocess.run([exe] + args, capture_output=True, text=True, env=env, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: test-ncz-inspect.py NCZ_INSPECT [LZF_CODEC_LIBRARY]", file=sys.stderr)
        return 2
    exe = sys.argv[1]
    lzf_codec = sys.argv[2] if len(sys.argv) == 3 else None
    tap = Tap()
    plugins = debian_plugins()
    tmp = tempfile.mkdtemp(prefix="ncz-inspect-")
    env = dict(os.environ)
    env["HDF5_PLUGIN_PATH"] = tmp
    try:
        run_checks(tap, exe, plugins, tmp, env, lzf_codec)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


def ncz_codec_modules(exe, env):
    rc, out, _ = inspect(exe, ["--json", "--kind=codec"], env)
    return json.loads(out) if rc == 0 else []


def run_checks(tap, exe, plugins, tmp, env, lzf_codec):
    for path in plugins:
        os.symlink(path, os.path.join(tmp, os.path.basename(path)))
    lzf_filter = next((p for p in plugins if os.path.basename(p) == "liblzf_filter.so"), None)
    if lzf_codec:
        os.symlink(os.path.abspath(lzf_codec), os.path.join(tmp, os.path.basename(lzf_codec)))
    # Libraries that must be skipped, each with its reason
    open(os.path.join(tmp, "libempty.so"), "wb").close()
    with open(os.path.join(tmp, "libtext.so.1"), "w") as f:
        f.write("not a shared library\n")
    libz = next((p for p in ("/lib/x86_64-linux-gnu/libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1")
                 if os.path.exists(p)), None)
    if libz:
        os.symlink(libz, os.path.join(tmp, "libnotafilter.so"))
    modules = ncz_codec_modules(exe, env)
    zstd_module = next((m["filename"] for m in modules if m["name"] == "zstd"), None)
    if zstd_module:
        os.symlink(os.path.abspath(zstd_module), os.path.join(tmp, "libncz-codec-zstd.so"))
    # Not a library name: never looked at
    with open(os.path.join(tmp, "README"), "w") as f:
        f.write("not a plugin\n")

    rc, out, err = inspect(exe, ["--foreign", "--json"], env)
    if not tap.ok(rc == 0, "--foreign --json succeeds", err):
        return
    try:
        doc = json.loads(out)
    except ValueError as e:
        tap.ok(False, "--foreign --json prints JSON", "%s\n%s" % (e, out))
        return
    tap.ok(set(doc) >= {"search_path", "host_libraries", "pairing", "skipped"},
           "--foreign --json has search_path, host_libraries, pairing, skipped", sorted(doc))

    # Search path: HDF5_PLUGIN_PATH, then the default directory
    sp = doc["search_path"]
    tap.ok(len(sp) >= 2 and sp[0] == {"path": tmp, "source": "HDF5_PLUGIN_PATH", "exists": True},
           "search path starts with HDF5_PLUGIN_PATH's directory", sp)
    tap.ok(sp[-1]["path"] == "/usr/local/hdf5/lib/plugin" and sp[-1]["source"] == "default",
           "search path ends with the default /usr/local/hdf5/lib/plugin", sp)

    pairing = doc["pairing"]
    skipped = doc["skipped"]
    ids = [r["filter_id"] for r in pairing]
    tap.ok(ids == sorted(set(ids)), "pairing rows are by increasing filter id, one per id", ids)
    for r in pairing + skipped:
        for key in ("filter_id", "codec_id", "status", "library", "hdf5_library",
                    "codec_library", "hdf5_name", "codec_is_default", "reason"):
            if key not in r:
                tap.ok(False, "row has %s" % key, r)
                break

    if not plugins:
        tap.skip("pairing rows of the Debian plugins", "packages %s not installed"
                 % ", ".join(PACKAGES))
    for path in plugins:
        base = os.path.basename(path)
        link = os.path.join(tmp, base)
        if base in NOT_FILTERS:
            row = next((r for r in skipped if r["library"] == link), None)
            tap.ok(row is not None and row["status"] == "broken" and row["reason"],
                   "%s (not a filter plugin) is skipped as broken, with a reason" % base, row)
            continue
        fid = KNOWN_FILTERS.get(base)
        row = next((r for r in pairing if r["hdf5_library"] == link), None)
        if row is None:
            bad = next((r for r in skipped if r["library"] == link), None)
            tap.ok(bad is not None and bad["reason"],
                   "%s: in the pairing table, or skipped with a reason" % base,
                   bad or "in neither list")
            if bad is not None:
                print("# %s skipped: %s: %s" % (base, bad["status"], bad["reason"]))
            continue
        tap.ok(fid is None or row["filter_id"] == fid,
               "%s: pairing row for HDF5 filter %s" % (base, fid), row)
        tap.ok(row["hdf5_name"] is not None, "%s: row shows the H5Z_class2_t name" % base, row)
        if row["codec_library"] is None:
            tap.ok(row["status"] == "hdf5-only" and row["codec_id"] is None and
                   row["reason"] and "Codec" in row["reason"],
                   "%s: HDF5 only, not usable for NCZarr, reason given" % base, row)
        else:
            tap.ok(row["status"] == "usable" and row["codec_id"] and row["reason"] is None,
                   "%s: paired with Codec library %s: usable as %s"
                   % (base, os.path.basename(row["codec_library"]), row["codec_id"]), row)

    # An HDF5-only library made usable by a Codec-only library
    if lzf_codec is None or lzf_filter is None:
        tap.skip("filter 32000 (LZF) usable through Ncz's Codec-only library",
                 "no %s" % ("LZF Codec library built" if lzf_codec is None
                            else "Debian hdf5-plugin-lzf"))
    else:
        row = next((r for r in pairing if r["filter_id"] == 32000), None)
        tap.ok(row is not None and row["status"] == "usable" and row["codec_id"] == "lzf" and
               row["hdf5_library"] == os.path.join(tmp, "liblzf_filter.so") and
               row["codec_library"] == os.path.join(tmp, os.path.basename(lzf_codec)) and
               row["reason"] is None,
               "filter 32000: liblzf_filter.so (HDF5 only) + %s (Codec only) = usable as lzf"
               % os.path.basename(lzf_codec), row)
        rc, out, err = inspect(exe, ["--json", "32000"], env)
        d = json.loads(out) if out.startswith("{") else {}
        tap.ok(rc == 0 and d.get("status") == "usable" and d.get("example") == {"id": "lzf"},
               "ncz-inspect-1.0 32000: usable, codec JSON {\"id\": \"lzf\"}, exit 0",
               out + err)
        rc, _, _ = inspect(exe, ["--exists", "lzf"], env)
        tap.ok(rc == 0, "--exists lzf: 0 (usable foreign filter)")

    for name, what in (("libempty.so", "an empty file"), ("libtext.so.1", "a text file"),
                       ("libnotafilter.so", "a library exporting neither ABI")):
        if not os.path.lexists(os.path.join(tmp, name)):
            continue
        row = next((r for r in skipped if r["library"] == os.path.join(tmp, name)), None)
        tap.ok(row is not None and row["status"] == "broken" and row["reason"],
               "%s (%s) is skipped as broken, with a reason" % (name, what), row)
    if zstd_module:
        row = next((r for r in skipped
                    if r["library"] == os.path.join(tmp, "libncz-codec-zstd.so")), None)
        tap.ok(row is not None and row["status"] == "ncz-module" and row["filter_id"] == 32015,
               "an Ncz codec module in HDF5_PLUGIN_PATH is listed as ncz-module", row)
    tap.ok(not any(r["library"].endswith("README") for r in pairing + skipped),
           "files not named lib*.so* are not looked at")

    # The text listing shows the same rows
    rc, out, err = inspect(exe, [], env)
    tap.ok(rc == 0, "listing succeeds", err)
    for r in pairing:
        tap.ok(any(str(r["filter_id"]) in line and r["status"] in line and
                   os.path.basename(r["library"]) in line for line in out.splitlines()),
               "listing shows filter %s %s %s" % (r["filter_id"], r["status"],
                                                  os.path.basename(r["library"])), out)
    for r in skipped:
        tap.ok(r["library"] in out and r["reason"] in out,
               "listing shows why %s was skipped" % os.path.basename(r["library"]), out)
    rc, out, err = inspect(exe, ["--failed"], env)
    broken = [r for r in skipped if r["status"] == "broken"]
    tap.ok(rc == 0 and all(r["library"] in out and r["reason"] in out for r in broken),
           "--failed shows the %d broken foreign libraries with their reasons" % len(broken),
           out + err)
    rc, out, err = inspect(exe, ["--kind=foreign"], env)
    tap.ok(rc == 0 and "Foreign filter libraries" in out and
           not any(line.startswith(("codec ", "format ", "store ")) for line in out.splitlines()),
           "--kind=foreign lists only the foreign libraries", out)

    # --paths
    rc, out, err = inspect(exe, ["--paths", "--json"], env)
    paths = json.loads(out) if rc == 0 else []
    tap.ok({"path": tmp, "source": "HDF5_PLUGIN_PATH", "exists": True,
            "for": "foreign-libraries"} in paths, "--paths --json shows HDF5_PLUGIN_PATH", paths)
    tap.ok(any(p["for"] == "modules" and p["source"] == "NCZ_PLUGIN_PATH" for p in paths),
           "--paths --json shows NCZ_PLUGIN_PATH directories", paths)
    rc, out, err = inspect(exe, ["--paths"], env)
    tap.ok("%s  (HDF5_PLUGIN_PATH)" % tmp in out and "/usr/local/hdf5/lib/plugin  (default" in out,
           "--paths shows each foreign directory and where it comes from", out)

    # Details of a foreign-only filter
    only = next((r for r in pairing if r["status"] == "hdf5-only" and
                 not any(m for m in modules
                         if "hdf5-filter:%d" % r["filter_id"] in m["provides"])), None)
    if only is None:
        tap.skip("details of an HDF5-only foreign filter", "none found")
    else:
        rc, out, err = inspect(exe, [str(only["filter_id"])], env)
        tap.ok(rc == 1 and os.path.basename(only["library"]) in out and "hdf5-only" in out and
               only["reason"] in out,
               "ncz-inspect-1.0 %d shows the foreign row, exit 1 (not usable)" % only["filter_id"],
               out + err)
        rc, out, err = inspect(exe, ["--json", os.path.basename(only["library"])], env)
        tap.ok(rc == 1 and json.loads(out)["filter_id"] == only["filter_id"],
               "details by library file name, as JSON", out + err)
        rc, _, _ = inspect(exe, ["--exists", str(only["filter_id"])], env)
        tap.ok(rc == 1, "--exists %d: 1 (HDF5 only)" % only["filter_id"])

    # Details of every codec module
    try:
        import numcodecs
    except ImportError:
        numcodecs = None
    for m in modules:
        name = m["name"]
        rc, out, err = inspect(exe, ["--json", name], env)
        if not tap.ok(rc == 0, "ncz-inspect-1.0 --json %s succeeds" % name, err):
            continue
        d = json.loads(out)
        codecs = d.get("codecs") or []
        if not tap.ok(len(codecs) >= 1, "%s: details list its codec" % name, d):
            continue
        c = codecs[0]
        fids = [int(p.split(":")[1]) for p in m["provides"] if p.startswith("hdf5-filter:")]
        if c["filter_id"] == 0:
            # numcodecs codecs without an HDF5 id (gzip, delta, crc32, ...):
            # Ncz only, and the example may need parameters (delta's dtype)
            tap.ok(fids == [] and c["hdf5_abi"] is None and c["codec_abi"] is None,
                   "%s: no HDF5 id, neither HDF5 nor Codec ABI" % name, c)
            ex = c["example"]
            tap.ok((isinstance(ex, dict) and ex.get("id") == c["codec_id"]) or
                   (ex is None and c["codec_id"] in (c["example_error"] or "")),
                   "%s: example codec JSON %s or an error naming the codec" % (name, json.dumps(ex)), c)
            continue
        tap.ok(c["filter_id"] in fids, "%s: codec %s has HDF5 id %s" % (name, c["codec_id"],
                                                                      fids), c)
        ex = c["example"]
        tap.ok(isinstance(ex, dict) and ex.get("id") == c["codec_id"],
               "%s: example codec JSON %s" % (name, json.dumps(ex)), c)
        tap.ok(c["hdf5_abi"] == {"filter_id": c["filter_id"], "name": c["hdf5_abi"]["name"]}
               if c["hdf5_abi"] else False,
               "%s: the module exports the HDF5 plugin ABI for filter %d" % (name, c["filter_id"]),
               c)
        tap.ok(c["codec_abi"] == {"codec_id": c["codec_id"], "filter_id": c["filter_id"]},
               "%s: the module exports the netcdf-c Codec ABI (%s <-> %d)"
               % (name, c["codec_id"], c["filter_id"]), c)
        if numcodecs is not None and isinstance(ex, dict):
            try:
                known = numcodecs.registry.codec_registry.get(ex["id"]) is not None
            except Exception:  # noqa: BLE001
                known = False
            if known:
                try:
                    numcodecs.get_codec(dict(ex))
                    ok, why = True, ""
                except Exception as e:  # noqa: BLE001
                    ok, why = False, "%s: %s" % (type(e).__name__, e)
                tap.ok(ok, "%s: numcodecs accepts the example %s" % (name, json.dumps(ex)), why)
        rc, out, err = inspect(exe, [name], env)
        tap.ok(rc == 0 and "Codec JSON" in out and "HDF5 filter" in out,
               "ncz-inspect-1.0 %s shows codec, HDF5 filter and codec JSON" % name, out + err)

    # --exists
    if modules:
        m = modules[0]
        rc, _, _ = inspect(exe, ["--exists", m["name"]], env)
        tap.ok(rc == 0, "--exists %s: 0" % m["name"])
        rc, _, _ = inspect(exe, ["--exists", m["name"], "--atleast-version", m["version"]], env)
        tap.ok(rc == 0, "--exists %s --atleast-version %s: 0" % (m["name"], m["version"]))
        rc, _, _ = inspect(exe, ["--exists", m["name"], "--atleast-version", "999.0"], env)
        tap.ok(rc == 1, "--exists %s --atleast-version 999.0: 1" % m["name"])
    rc, out, _ = inspect(exe, ["--exists", "no-such-codec"], env)
    tap.ok(rc == 1 and out == "", "--exists no-such-codec: 1, prints nothing")
    rc, _, _ = inspect(exe, ["--atleast-version", "1"], env)
    tap.ok(rc == 2, "--atleast-version without --exists is a usage error")

    # A format plugin shows its probe, read from its manifest
    rc, out, err = inspect(exe, ["--json", "nczarr"], env)
    doc3 = json.loads(out) if rc == 0 else {}
    probe = doc3.get("probes", {}).get("nczarr", [])
    tap.ok("Markers=.zgroup;.zarray;.nczarr" in probe and "NeedsStore=true" in probe and
           any(line.startswith("Modes=") and "zarr" in line.split("=", 1)[1].split(";")
               for line in probe),
           "ncz-inspect-1.0 --json nczarr shows its probe (modes, markers, store)", out + err)
    rc, out, err = inspect(exe, ["nczarr"], env)
    tap.ok(rc == 0 and "Probe" in out and ".zgroup" in out,
           "ncz-inspect-1.0 nczarr prints a Probe line", out + err)

    # Without HDF5_PLUGIN_PATH: the default directory only
    env2 = dict(env)
    del env2["HDF5_PLUGIN_PATH"]
    rc, out, err = inspect(exe, ["--foreign", "--json"], env2)
    doc2 = json.loads(out) if rc == 0 else {}
    tap.ok([p["source"] for p in doc2.get("search_path", [])] == ["default"],
           "without HDF5_PLUGIN_PATH only the default directory is searched", out + err)


if __name__ == "__main__":
    sys.exit(main())
