#!/usr/bin/python3
# test-codecs-corpus.py: the corpus filter cases: _Filter and _Codecs
#
# Usage: test-codecs-corpus.py WRITE_CODECS_EXE NCZ_DUMP_EXE [SUBSTRING...]
#
# netCDF's filter tests write a dataset with filters and compare
# `ncdump -s` of it with an expected CDL file of the corpus:
# ref_bzip2.cdl, ref_filtered.cdl and ref_multi.cdl (v4.9.3 and
# v4.10-main) and ref_any.cdl (v4.9.3, a template filled in per standard
# filter). Debian's ncgen 4.9.0 cannot write filtered NCZarr stores, so
# write-codecs (Ncz) writes the same variables with the same filters
# (same names, dimensions, chunks, fill settings and values), and
# `ncz-dump -s` of them must give the expected text. The comparison is
# netCDF's own (`diff -b -w` after dropping the platform-dependent
# attributes); `_Codecs` values are compared as JSON (key order and
# spacing free, types not). Where the expected text has numbers as
# strings ("level": "9", written by netCDF up to 4.9.3), Ncz writes
# numbers as netCDF 4.10 does, and the 4.10 form is expected; see
# KNOWN-DIFFERENCES.md ("Filter cases") for every adaptation.
#
# Also the blosc store of ref_power_901_constants_orig.zip (written by
# xarray, v4.9.3 and v4.10-main): every variable must show
# _Filter = "32001,0,0,0,0,5,1,1" and the blosc codec in _Codecs, as
# netCDF 4.9.3 shows them.
#
# Output is TAP. Environment: NCZ_CORPUS_DIR (containing netcdf-c/).
#
# SPDX-License-Identifier: BSD-3-Clause

import json
import os
import re
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import interop_common as ic  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(os.environ.get("NCZ_CORPUS_DIR") or
                      os.path.join(HERE, "..", "..", "..", "shared", "corpus"), "netcdf-c")

# Attributes netCDF's filter tests drop before comparing (sclean).
SCLEAN = [r":_IsNetcdf4", r":_Endianness", r"_NCProperties", r"_SuperblockVersion"]
# run_specific_filters.sh drops these too for ref_any.cdl.
SCLEAN_ANY = SCLEAN + [r"_Format", r"global attributes:"]

# ref_any.cdl's substitutions per filter (run_specific_filters.sh):
# filter name, _Filter text, _Codecs text, write-codecs chain.
ANY_FILTERS = [
    ("fletcher32", "3", '[{"id": "fletcher32"}]', "=3"),
    ("shuffle", "2", '[{"id": "shuffle","elementsize": "0"}]', "=2"),
    ("deflate", "1,9", '[{"id": "zlib","level": "9"}]', "=1,9"),
    ("szip", "4,32,32", '[{"id": "szip","mask": 32,"pixels-per-block": 32}]', "=4,32,32"),
    ("bzip2", "307,9", '[{"id": "bz2","level": "9"}]', "=307,9"),
    ("blosc", "32001,0,0,0,256,5,1,1",
     '[{"id": "blosc","clevel": 5,"blocksize": 256,"cname": "lz4","shuffle": 1}]',
     "=32001,0,0,0,256,5,1,1"),
    ("zstd", "32015,1", '[{"id": "zstd","level": "1"}]', "=32015,1"),
]

# How netCDF's ncdump -s shows the filters it has special attributes for
# (as 4.9.3 prints them: generated/gen493/filt3.ncdump-hs.txt).
SPECIAL_FORM = {
    "3": ['_Fletcher32 = "true"'],
    "2": ['_Shuffle = "true"'],
    "1,9": ["_DeflateLevel = 9"],
}


class Tap:
    def __init__(self, selectors):
        self.n = 0
        self.failed = 0
        self.selectors = selectors

    def wanted(self, name):
        return not self.selectors or any(s in name for s in self.selectors)

    def ok(self, cond, name, diag=None):
        self.n += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, name))
        if not cond:
            self.failed += 1
            for line in str(diag or "").splitlines()[:60]:
                print("# " + line)
        sys.stdout.flush()
        return cond

    def skip(self, name, why):
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, name, why))

    def done(self):
        print("1..%d" % self.n)
        return 1 if self.failed else 0


def run(argv, env):
    print("# $ " + " ".join(argv), flush=True)
    return subprocess.run(argv, capture_output=True, text=True, env=env)


# ----------------------------------------------------------------------
# Comparing CDL the way netCDF's tests do

def sclean(text, patterns):
    return "\n".join(line for line in text.splitlines()
                     if not any(re.search(p, line) for p in patterns))


def unquote_numbers(cdl):
    """netCDF <= 4.9.3's "level": "9" inside a CDL string -> "level": 9."""
    return re.sub(r'(\\"[\w-]+\\":\s*)\\"(-?\d+)\\"', r"\1\2", cdl)


CODECS_LINE = re.compile(r'^\s*([\w]*):_Codecs = "(.*)" ;\s*$')


def cdl_string(text):
    return text.replace('\\"', '"').replace("\\\\", "\\")


def same_line(got, want):
    mg, mw = CODECS_LINE.match(got), CODECS_LINE.match(want)
    if mg and mw:
        try:
            return mg.group(1) == mw.group(1) and \
                json.loads(cdl_string(mg.group(2))) == json.loads(cdl_string(mw.group(2)))
        except ValueError:
            return False
    return "".join(got.split()) == "".join(want.split())


def diff_lines(got, want):
    """netCDF's diff -b -w, but _Codecs compared as JSON. Returns the
    differing (got, want) line pairs, or a length mismatch."""
    g = got.splitlines()
    w = want.splitlines()
    out = []
    for i in range(max(len(g), len(w))):
        a = g[i] if i < len(g) else "<missing>"
        b = w[i] if i < len(w) else "<missing>"
        if not same_line(a, b):
            out.append("line %d:\n  ncz-dump: %s\n  expected: %s" % (i + 1, a, b))
    return out


def compare_cdl(tap, name, got, alternatives):
    """ok when `got` matches one of the expected texts, given as
    (description, text) pairs; the description of a match other than the
    first is printed as a comment."""
    best = None
    for i, (what, want) in enumerate(alternatives):
        d = diff_lines(got, want)
        if not d:
            if i > 0:
                print("# matched with: %s" % what)
            return tap.ok(True, name)
        if best is None or len(d) < len(best):
            best = d
    return tap.ok(False, name, "\n".join(best[:20]))


# ----------------------------------------------------------------------

def available_codecs(env):
    inspect = os.path.join(os.environ.get("NCZ_BUILD_ROOT", ""), "tools", "ncz-inspect",
                           "ncz-inspect-1.0")
    if not os.path.exists(inspect):
        return None
    p = subprocess.run([inspect, "--json", "--kind=hdf5-filter"], capture_output=True,
                       text=True, env=env)
    if p.returncode != 0:
        return None
    ids = set()
    for plugin in json.loads(p.stdout):
        for feature in plugin.get("provides", []):
            if feature.startswith("hdf5-filter:"):
                ids.add(int(feature.split(":")[1]))
    return ids


def chain_ids(chain):
    return [int(step[1:].split(",")[0]) for step in chain.split("|")]


class Case:
    def __init__(self, tap, exe, dump, tmp, env, have):
        self.tap, self.exe, self.dump, self.tmp, self.env, self.have = \
            tap, exe, dump, tmp, env, have

    def write_and_dump(self, label, name, options, specs, dump_options):
        """Writes the store, returns ncz-dump's output (or None)."""
        needed = set()
        for s in specs:
            needed.update(chain_ids(s.split(":", 4)[4]))
        lack = sorted(i for i in needed if self.have is not None and i not in self.have)
        if lack:
            self.tap.skip(label, "no codec for filter %s" % ", ".join(map(str, lack)))
            return None
        store = os.path.join(self.tmp, label.replace("/", "_").replace(" ", "_") + ".zarr")
        url = "file://%s#mode=nczarr,file" % store
        p = run([self.exe] + options + [url] + specs, self.env)
        if not self.tap.ok(p.returncode == 0, "%s: write-codecs writes the store" % label,
                           p.stderr):
            return None
        p = run([self.dump] + dump_options + ["-n", name, url], self.env)
        if not self.tap.ok(p.returncode == 0, "%s: ncz-dump %s" % (label, " ".join(dump_options)),
                           p.stderr):
            return None
        return p.stdout


def expected(path, patterns=SCLEAN):
    with open(path, encoding="utf-8") as f:
        return sclean(unquote_numbers(f.read()), patterns)


FLOAT4D = "var:float:4,4,4,4:4,4,4,4:"
DIMS4 = "--dims=dim0,dim1,dim2,dim3"


def fixed_cases(c):
    for version in ("v4.9.3", "v4.10-main"):
        d = os.path.join(CORPUS, version)
        cases = [
            # testfilter: nc_def_var_filter (307, 9) on var(dim0..dim3), no fill
            ("ref_bzip2.cdl", "bzip2", [DIMS4, "--values=ramp", "--no-fill"],
             [FLOAT4D + "=307,9"], ["-s"]),
            # nccopy -F "/g/var,307,9": the variable in group g
            ("ref_filtered.cdl", "filtered", [DIMS4, "--group=g", "--values=ramp",
                                              "--no-fill"], [FLOAT4D + "=307,9"], ["-s"]),
            # testfilter_multi: bzip2, deflate, noop (HDF5 id 40000)
            ("ref_multi.cdl", "multifilter", [DIMS4, "--values=ramp", "--no-fill"],
             [FLOAT4D + "=307,9|=1,2|=40000"], ["-hs"]),
        ]
        for cdl, name, options, specs, dump_options in cases:
            label = "%s/%s" % (version, cdl)
            if not c.tap.wanted(label):
                continue
            got = c.write_and_dump(label, name, options, specs, dump_options)
            if got is None:
                continue
            want = expected(os.path.join(d, cdl))
            alternatives = [("the expected text", want)]
            compare_cdl(c.tap, "%s: ncz-dump %s gives the expected text (4.10 numbers)"
                        % (label, " ".join(dump_options)), sclean(got, SCLEAN), alternatives)


def fill_template(template, name, h5, codecs):
    """run_specific_filters.sh's setfilter, in Python."""
    out = []
    for line in template.splitlines():
        line = line.replace("ref_any", name)
        line = line.replace("IH5", h5).replace("FH5", h5)
        line = line.replace("ICX", codecs).replace("FCX", codecs)
        line = line.replace('"', '\\"').replace("@", '"')
        out.append(line)
    return "\n".join(out)


def any_cases(c):
    path = os.path.join(CORPUS, "v4.9.3", "ref_any.cdl")
    with open(path, encoding="utf-8") as f:
        template = f.read()
    for name, h5, codecs, chain in ANY_FILTERS:
        label = "v4.9.3/ref_any.cdl %s" % name
        if not c.tap.wanted(label):
            continue
        got = c.write_and_dump(
            label, name, ["--dims=dim0,dim1,dim2", "--values=ramp-half,ramp", "--fill-attr"],
            ["fvar:float:4,4,4:4,4,4:" + chain, "ivar:int:4,4,4:4,4,4:" + chain], ["-s"])
        if got is None:
            continue
        # Ncz writes shuffle's real element size (4 for float and int), as
        # a number: numcodecs cannot decode "elementsize": "0".
        codecs = codecs.replace('"elementsize": "0"', '"elementsize": 4')
        want = sclean(unquote_numbers(fill_template(template, name, h5, codecs)), SCLEAN_ANY)
        alternatives = [("the template's text", want)]
        for form in SPECIAL_FORM.get(h5, []):
            alternatives.append(("ncdump's special attribute %s" % form,
                                 want.replace('_Filter = "%s"' % h5, form)))
        if name == "blosc":
            # netCDF 4.9.3 shows the typesize its modify step put in the
            # visible parameters (run_specific_filters.sh masks it)
            alternatives.append(("the typesize in the visible parameters",
                                 want.replace(h5, "32001,0,0,4,256,5,1,1")))
        compare_cdl(c.tap, "%s: ncz-dump -s gives the expected text (4.10 numbers)" % label,
                    sclean(got, SCLEAN_ANY), alternatives)


def power_cases(c):
    want_codecs = [{"id": "blosc", "clevel": 5, "blocksize": 0, "cname": "lz4", "shuffle": 1}]
    for version in ("v4.9.3", "v4.10-main"):
        label = "%s/ref_power_901_constants_orig.zip" % version
        if not c.tap.wanted(label):
            continue
        dest = os.path.join(c.tmp, version)
        with zipfile.ZipFile(os.path.join(CORPUS, version,
                                          "ref_power_901_constants_orig.zip")) as z:
            z.extractall(dest)
        store = os.path.join(dest, "ref_power_901_constants")
        p = run([c.dump, "-hs", "file://%s#mode=zarr,file" % store], c.env)
        if not c.tap.ok(p.returncode == 0, "%s: ncz-dump -hs" % label, p.stderr):
            continue
        variables = sorted(n for n in os.listdir(store)
                           if os.path.exists(os.path.join(store, n, ".zarray")))
        c.tap.ok(len(variables) == 4, "%s: four blosc arrays" % label, variables)
        for v in variables:
            filt = re.search(r'^\s*%s:_Filter = "(.*)" ;$' % v, p.stdout, re.M)
            c.tap.ok(filt is not None and filt.group(1) == "32001,0,0,0,0,5,1,1",
                     '%s %s: _Filter = "32001,0,0,0,0,5,1,1"' % (label, v),
                     filt.group(0) if filt else "no _Filter line")
            cod = re.search(r'^\s*%s:_Codecs = "(.*)" ;$' % v, p.stdout, re.M)
            try:
                value = json.loads(cdl_string(cod.group(1))) if cod else None
            except ValueError:
                value = "unparsable: " + cod.group(1)
            c.tap.ok(value == want_codecs, "%s %s: _Codecs is %s" % (label, v,
                                                                      json.dumps(want_codecs)),
                     cod.group(0) if cod else "no _Codecs line")


def main():
    if len(sys.argv) < 3:
        print("usage: test-codecs-corpus.py WRITE_CODECS NCZ_DUMP [SUBSTRING...]",
              file=sys.stderr)
        return 2
    if not os.path.isdir(CORPUS):
        print("1..0 # SKIP no corpus at " + CORPUS)
        return 0
    tap = Tap(sys.argv[3:])
    env = dict(os.environ)
    tmp = ic.make_tmpdir("codecs-corpus")
    try:
        c = Case(tap, sys.argv[1], sys.argv[2], tmp, env, available_codecs(env))
        fixed_cases(c)
        any_cases(c)
        power_cases(c)
    finally:
        ic.remove_tmpdir(tmp)
    return tap.done()


if __name__ == "__main__":
    sys.exit(main())
