#!/usr/bin/python3
"""Runs `gi-docgen check` on the GIR and fails if it reports anything.

    check-docs.py GI-DOCGEN CONFIG.toml GIR [STAMP]

gi-docgen check names every public symbol, parameter and return value of
the GIR that has no documentation; each of its lines is printed here as
it came, then the count. With STAMP (the build step), the stamp file is
written when the check passes. The exit status is 1 when something is
undocumented or the check could not run."""
import os
import re
import subprocess
import sys


def main(argv):
    if len(argv) not in (4, 5):
        sys.stderr.write("usage: check-docs.py GI-DOCGEN CONFIG.toml GIR [STAMP]\n")
        return 2
    gidocgen, config, gir = argv[1:4]
    stamp = argv[4] if len(argv) == 5 else None
    # the GIRs the Ncz GIR includes (GObject-2.0, Gio-2.0, Json-1.0) are
    # found in gi-docgen's default search path; the Ncz GIR's own
    # directory comes first
    cmd = [gidocgen, "check", "--config", config,
           "--add-include-path", os.path.dirname(os.path.abspath(gir)), gir]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    # its progress lines (INFO: ...) are not findings; colours are dropped
    text = re.sub(r"\x1b\[[0-9;]*m", "", r.stdout)
    lines = [line for line in text.splitlines()
             if line.strip() and not line.startswith("INFO:")]
    if lines or r.returncode != 0:
        sys.stdout.write("gi-docgen check %s: %d problem(s)\n" % (os.path.basename(gir), len(lines)))
        for line in lines:
            sys.stdout.write("  " + line + "\n")
        if not lines:
            sys.stdout.write("  gi-docgen exited with %d\n" % r.returncode)
        sys.stdout.write("Write a gtk-doc comment (a description, every parameter, "
                         "Returns: and Since:) for each symbol named above.\n")
        return 1
    sys.stdout.write("gi-docgen check %s: every public symbol is documented\n" % os.path.basename(gir))
    if stamp:
        with open(stamp, "w") as f:
            f.write("ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
