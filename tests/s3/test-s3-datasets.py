#!/usr/bin/python3
# Datasets on S3, printing TAP:
#  - what write-all writes (every type, fill values, groups, attributes;
#    NCZarr and plain Zarr) written straight to S3 dumps (ncz-dump -s) as
#    when written to a directory; ncz-copy moves it file -> S3 -> file
#    with the same dump;
#  - every Zarr store of the shared corpus (../shared/corpus, zips
#    unpacked) that Ncz reads goes file -> zip (when the zip store is
#    built) -> S3 -> file with the same dump;
#  - the requests of an open, seen through a logging proxy and the
#    gateway's perf counters: a consolidated open (.zmetadata) is one GET
#    and nothing else (those of an NCZarr open are shown).
#
#   test-s3-datasets.py NCZ-DUMP NCZ-COPY NCZ-GEN WRITE-ALL
#
# SPDX-License-Identifier: BSD-3-Clause

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s3common as s3  # noqa: E402
from s3proxy import FaultProxy  # noqa: E402

s3.require_server()
NCZ_DUMP, NCZ_COPY, NCZ_GEN, WRITE_ALL = sys.argv[1:5]
if os.environ.get("NCZ_TEST_S3_HAVE_STORE") != "1":
    print("1..0 # SKIP no s3 store module (storage-drivers/s3 not built)")
    sys.exit(77)
TMP = tempfile.mkdtemp(prefix="ncz-s3-datasets-")
ENV = s3.clean_env()
T = s3.Tap()
CORPUS = os.environ.get("NCZ_CORPUS_DIR", "")


def run(args, timeout=600):
    return subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=timeout)


def dump(url, opt="-s"):
    r = run([NCZ_DUMP] + ([opt] if opt else []) + [url])
    if r.returncode != 0:
        return None, r.stderr
    # the first line names the dataset after its location
    return (r.stdout.split("\n", 1)[1] if "\n" in r.stdout else r.stdout), r.stderr


def same_dump(a_url, b_url, name):
    a, ea = dump(a_url)
    b, eb = dump(b_url)
    return T.ok(a is not None and a == b, name,
                f"{a_url}: {ea}\n{b_url}: {eb}\n--- a\n{a}\n--- b\n{b}")


def file_url(path, mode):
    return f"file://{path}#mode={mode},file"


def write_all_cases(bucket):
    for mode in ("nczarr", "zarr"):
        local = os.path.join(TMP, f"write-all-{mode}")
        r = run([WRITE_ALL, file_url(local, mode), local + ".json", "--profile=full"])
        if not T.ok(r.returncode == 0, f"write-all writes {mode} to a directory", r.stderr):
            continue
        direct = s3.s3_url(bucket, f"write-all-{mode}", mode)
        r = run([WRITE_ALL, direct, os.path.join(TMP, f"s3-{mode}.json"), "--profile=full"])
        if T.ok(r.returncode == 0, f"write-all writes {mode} straight to S3", r.stderr):
            same_dump(file_url(local, mode), direct,
                      f"write-all {mode}: written to S3 and to a directory dump the same")
        copied = s3.s3_url(bucket, f"copied-{mode}", mode)
        r = run([NCZ_COPY, file_url(local, mode), copied])
        if T.ok(r.returncode == 0, f"ncz-copy write-all {mode} file -> S3", r.stderr):
            same_dump(file_url(local, mode), copied, f"write-all {mode}: the S3 copy dumps the same")
        back = os.path.join(TMP, f"back-{mode}")
        r = run([NCZ_COPY, copied, file_url(back, mode)])
        if T.ok(r.returncode == 0, f"ncz-copy write-all {mode} S3 -> file", r.stderr):
            same_dump(file_url(local, mode), file_url(back, mode),
                      f"write-all {mode}: file -> S3 -> file dumps the same")


def find_stores(root):
    """Directories of the corpus holding a Zarr store root."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        if ".zgroup" in filenames or ".zarray" in filenames:
            out.append(dirpath)
            dirnames[:] = []
    return sorted(out)


def corpus_cases(bucket):
    if not CORPUS or not os.path.isdir(CORPUS):
        T.skip("corpus datasets file -> S3 -> file", "NCZ_CORPUS_DIR is not a directory")
        return
    unpacked = os.path.join(TMP, "corpus")
    stores = []
    for dirpath, dirnames, filenames in os.walk(CORPUS):
        for f in filenames:
            if f.endswith(".zip"):
                dest = os.path.join(unpacked, os.path.relpath(os.path.join(dirpath, f), CORPUS))
                try:
                    with zipfile.ZipFile(os.path.join(dirpath, f)) as z:
                        z.extractall(dest)
                except (zipfile.BadZipFile, OSError, ValueError):
                    continue
                zname = os.path.relpath(os.path.join(dirpath, f), CORPUS)
                stores += [(f"{zname}:{os.path.relpath(s, dest)}", s) for s in find_stores(dest)]
    stores += [(os.path.relpath(s, CORPUS), s) for s in find_stores(CORPUS)]
    tried = 0
    use_zip = None
    for n, (name, path) in enumerate(stores):
        mode = None
        for m in ("nczarr", "zarr"):
            if dump(file_url(path, m))[0] is not None:
                mode = m
                break
        if mode is None:
            continue  # a store Ncz does not read (the corpus-dump test covers why)
        tried += 1
        # the chain: corpus -> file (Ncz's own copy, the reference: a new
        # dataset gains _NCProperties) -> zip (when the zip store is
        # built) -> S3 -> file; every hop dumps the same
        ref = os.path.join(TMP, "corpus-ref", str(n))
        r = run([NCZ_COPY, file_url(path, mode), file_url(ref, mode)])
        if not T.ok(r.returncode == 0, f"corpus {name} ({mode}): ncz-copy to a directory",
                    r.stderr):
            continue
        src = file_url(ref, mode)
        if use_zip is not False:
            zpath = os.path.join(TMP, "corpus-zip", f"{n}.zip")
            os.makedirs(os.path.dirname(zpath), exist_ok=True)
            zurl = f"file://{zpath}#mode={mode},zip"
            r = run([NCZ_COPY, src, zurl])
            if use_zip is None and r.returncode != 0 and "zip" in r.stderr and (
                    "not installed" in r.stderr or "unknown" in r.stderr.lower()):
                use_zip = False
                T.note("no zip store module: the chain leaves zip out")
            else:
                use_zip = True
                if T.ok(r.returncode == 0, f"corpus {name}: ncz-copy file -> zip", r.stderr):
                    same_dump(src, zurl, f"corpus {name}: the zip copy dumps the same")
                    src = zurl
        key = f"corpus/{n}"
        up = s3.s3_url(bucket, key, mode)
        r = run([NCZ_COPY, src, up])
        if not T.ok(r.returncode == 0, f"corpus {name}: ncz-copy -> S3", r.stderr):
            continue
        same_dump(file_url(ref, mode), up, f"corpus {name}: the S3 copy dumps the same")
        back = os.path.join(TMP, "corpus-back", str(n))
        r = run([NCZ_COPY, up, file_url(back, mode)])
        if T.ok(r.returncode == 0, f"corpus {name}: ncz-copy S3 -> file", r.stderr):
            same_dump(file_url(ref, mode), file_url(back, mode),
                      f"corpus {name}: file -> S3 -> file dumps the same")
    T.ok(tried >= 10, f"corpus: {tried} stores went through S3", f"only {tried}")


def is_list(target):
    q = target.split("?", 1)[1] if "?" in target else ""
    return any(p.startswith(("list-type=", "prefix=", "delimiter=", "uploads"))
               for p in q.split("&"))


def perf():
    p = s3.rgw_perf() or {}
    return p.get("req", 0), p.get("get", 0)


def open_costs(bucket):
    client = s3.boto3_client()
    cdl = ["netcdf meta {", "dimensions:", "  n = 3 ;", "variables:"]
    for v in range(3):
        cdl.append(f"  double v{v}(n) ;")
        cdl.append(f"    v{v}:units = \"m\" ;")
    for g in range(3):
        cdl.append(f"group: g{g} {{")
        cdl.append("variables:")
        for v in range(4):
            cdl.append(f"  int w{v}(n) ;")
        cdl.append("}")
    cdl.append("}")
    cdl_path = os.path.join(TMP, "meta.cdl")
    with open(cdl_path, "w") as f:
        f.write("\n".join(cdl) + "\n")

    proxy = FaultProxy("127.0.0.1", s3.port())
    proxy.start()
    via = f"http://127.0.0.1:{proxy.port}"
    try:
        for mode, extra, name in (("zarr", "consolidated=true", "consolidated"),
                                  ("nczarr", "", "nczarr")):
            key = f"meta-{name}"
            r = run([NCZ_GEN, "-o", s3.s3_url(bucket, key, mode), cdl_path])
            if not T.ok(r.returncode == 0, f"ncz-gen writes the {name} metadata case to S3",
                        r.stderr):
                continue
            keys = s3.list_keys(client, bucket, key + "/")
            n_meta = sum(1 for k in keys if k.rsplit("/", 1)[-1].startswith("."))
            if name == "consolidated":
                T.ok(f"{key}/.zmetadata" in keys, "plain Zarr on S3 writes .zmetadata by default",
                     keys)
            url = f"{via}/{bucket}/{key}#mode={mode},s3" + (f"&{extra}" if extra else "")
            proxy.clear_log()
            req0, get0 = perf()
            out, err = dump(url, "-h")
            req1, get1 = perf()
            log = proxy.requests()
            T.ok(out is not None, f"{name}: ncz-dump -h through the proxy", err)
            T.note(f"{name} open: {len(log)} requests: " +
                   ", ".join(f"{m} {t}" for m, t, _ in log))
            lists = [t for m, t, _ in log if m == "GET" and is_list(t)]
            gets = [t for m, t, _ in log if m == "GET" and not is_list(t)]
            T.ok(req1 - req0 == len(log), f"{name}: the gateway counted the requests the proxy saw",
                 f"gateway {req1 - req0}, proxy {len(log)}")
            if name == "consolidated":
                # the generation object first (docs/s3.md, "Replacing a
                # dataset"): what a reader's checks compare with
                T.ok(len(log) == 2 and len(gets) == 2 and gets[0].endswith("/.ncz-generation")
                     and gets[1].endswith("/.zmetadata"),
                     "a consolidated open is one GET of the generation object, one of "
                     ".zmetadata and nothing else", [f"{m} {t}" for m, t, _ in log])
                T.ok(get1 - get0 == 2, "the gateway counted two GETs", get1 - get0)
            else:
                # the issue's cost of an NCZarr open (no LIST, at most one GET
                # per group and variable) is a target of the bench
                # (bench/s3-bench.sh), shown here only
                T.note(f"NCZarr open: {len(gets)} GETs ({len(set(gets))} objects), "
                       f"{len(lists)} LISTs, {len(log) - len(gets) - len(lists)} others; "
                       f"{n_meta} metadata objects in the store")
    finally:
        proxy.stop()


def tree_cdl(n_groups, n_vars, n_sub):
    """CDL of a tree three levels deep: the root, n_groups groups with
    n_vars variables and n_sub subgroups each, every subgroup with n_vars
    variables."""
    def variables(indent, prefix):
        out = [indent + "variables:"]
        for v in range(n_vars):
            out.append(f"{indent}  int {prefix}{v}(n) ;")
            out.append(f"{indent}    {prefix}{v}:units = \"m\" ;")
        return out
    cdl = ["netcdf tree {", "dimensions:", "  n = 2 ;"] + variables("", "v")
    for g in range(n_groups):
        cdl.append(f"group: g{g} {{")
        cdl += variables("  ", "w")
        for k in range(n_sub):
            cdl.append(f"  group: s{k} {{")
            cdl += variables("    ", "x")
            cdl.append("  }")
        cdl.append("}")
    cdl.append("}")
    return "\n".join(cdl) + "\n"


def open_rounds(bucket):
    """Round trips of an open without .zmetadata, through a proxy that
    delays every request: a small and a large tree of the same depth
    take the same number of rounds (batches of requests in flight
    together), for NCZarr (children named by its metadata) and for plain
    Zarr (children found by listing)."""
    proxy = FaultProxy("127.0.0.1", s3.port())
    proxy.start()
    # a delay much longer than the client takes to send a batch (under
    # ASan, on a loaded machine): a batch is then one round
    proxy.set_rule(lambda method, target, n: "delay:0.25")
    via = f"http://127.0.0.1:{proxy.port}"
    try:
        for mode in ("nczarr", "zarr"):
            seen = {}
            # each level of the large tree is one batch of at most 48
            # requests: below the store's 64 in flight, so that a batch is
            # not split into waves the proxy would count as rounds
            for size, shape in (("small", (1, 1, 1)), ("large", (4, 2, 2))):
                key = f"rounds-{mode}-{size}"
                cdl_path = os.path.join(TMP, key + ".cdl")
                with open(cdl_path, "w") as f:
                    f.write(tree_cdl(*shape))
                r = run([NCZ_GEN, "-o", s3.s3_url(bucket, key, mode) + "&consolidated=false",
                         cdl_path])
                if not T.ok(r.returncode == 0, f"{mode} {size} tree written without .zmetadata",
                            r.stderr):
                    continue
                url = f"{via}/{bucket}/{key}#mode={mode},s3"
                proxy.clear_log()
                out, err = dump(url, "-h")
                n, rounds, most = len(proxy.requests()), proxy.rounds(), proxy.max_in_flight()
                T.ok(out is not None, f"{mode} {size} tree opens through the delaying proxy", err)
                T.note(f"{mode} {size} tree: {n} requests in {rounds} rounds, "
                       f"at most {most} in flight")
                seen[size] = (n, rounds)
            if len(seen) == 2:
                (n_small, r_small), (n_large, r_large) = seen["small"], seen["large"]
                T.ok(n_large > 3 * n_small and r_large == r_small,
                     f"{mode}: the rounds of an open follow the depth of the tree, not its "
                     f"size ({r_small} rounds for {n_small} requests, {r_large} for {n_large})",
                     seen)
                # the generation object, the root's objects, then one round
                # per level below it (and, for plain Zarr, one of listings
                # per level)
                T.ok(r_large <= (6 if mode == "nczarr" else 9),
                     f"{mode}: {r_large} rounds for a tree three levels deep", seen)
    finally:
        proxy.stop()


def main():
    client = s3.boto3_client()
    bucket = s3.unique_bucket("datasets")
    write_all_cases(bucket)
    open_costs(bucket)
    open_rounds(bucket)
    corpus_cases(bucket)
    s3.remove_bucket(client, bucket)


try:
    main()
finally:
    shutil.rmtree(TMP, ignore_errors=True)
sys.exit(T.done())
