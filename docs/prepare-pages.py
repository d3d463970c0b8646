#!/usr/bin/python3
"""Copies the user pages (docs/*.md, docs/reference/*.md) into one
directory for gi-docgen, which renders each as PAGE.html next to the API
reference.

    prepare-pages.py OUTDIR PAGE.md...

Each copy starts with the `Title:` header gi-docgen takes the page title
from (the page's first `# ` heading), and its links to the other pages
given (`[x](filters.md)`, `[x](../filters.md#codecs)`) point to their
.html. Links to anything else are left alone."""
import os
import re
import sys

LINK = re.compile(r"\]\(((?:\.\./|\./)?(?:reference/)?)([A-Za-z0-9_.-]+)\.md(#[^)]*)?\)")


def title_of(text, name):
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return name


def main(argv):
    if len(argv) < 3:
        sys.stderr.write("usage: prepare-pages.py OUTDIR PAGE.md...\n")
        return 2
    outdir = argv[1]
    pages = argv[2:]
    names = {os.path.splitext(os.path.basename(p))[0] for p in pages}
    os.makedirs(outdir, exist_ok=True)

    def relink(m):
        if m.group(2) not in names:
            return m.group(0)
        return "](%s.html%s)" % (m.group(2), m.group(3) or "")

    for page in pages:
        name = os.path.splitext(os.path.basename(page))[0]
        with open(page, encoding="utf-8") as f:
            text = f.read()
        out = "Title: %s\n\n%s" % (title_of(text, name), LINK.sub(relink, text))
        with open(os.path.join(outdir, name + ".md"), "w", encoding="utf-8") as f:
            f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
