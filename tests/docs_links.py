#!/usr/bin/env python3
"""Every relative link of the user documentation resolves.

Checks README.md and docs/*.md (or the Markdown files given): each link or image
[text](target) whose target is not a URL must name an existing file or folder,
relative to the page, and a #anchor must be the GitHub slug of a heading of the
page it points to (the page itself for a bare #anchor). Links inside fenced code
blocks and inline code are not links. Prints one line per broken link, naming
the page, its line and what is missing, and exits 1 if there is any.

Before checking, it checks itself on a made-up page with a good and three broken
links (a missing file, a missing heading, a missing heading of another page):
a checker that finds nothing wrong there could never fail.

    python3 tests/docs_links.py [--root DIR] [FILE.md ...]
"""
import argparse
import os
import re
import sys
import tempfile

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^ {0,3}(```+|~~~+)")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = FENCE.match(line)
            if m:
                marker = m.group(1)
                if fence is None:
                    fence = marker[0] * len(marker)
                elif marker.startswith(fence):
                    fence = None
                continue
            if fence is None:
                yield number, line.rstrip("\n")


def slug(heading):
    """GitHub's anchor for a heading: link text kept, markup and punctuation dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.strip().lower()
    kept = "".join(c for c in text if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen = {}
        found = set()
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
        cache[path] = found
    return cache[path]


def broken_links(page):
    """One message per broken link of the page."""
    problems = []
    for number, line in prose_lines(page):
        for m in LINK.finditer(INLINE_CODE.sub("", line)):
            target = m.group(1)
            if URL.match(target):
                continue
            path, _, anchor = target.partition("#")
            where = f"{page}:{number}: link '{target}'"
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(resolved):
                problems.append(f"{where}: no file '{resolved}'")
                continue
            if anchor:
                if not resolved.endswith(".md") or os.path.isdir(resolved):
                    problems.append(f"{where}: '{resolved}' is not a Markdown page, it has no #{anchor}")
                elif anchor not in anchors(resolved):
                    problems.append(f"{where}: no heading with anchor '#{anchor}' in '{resolved}'")
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "other.md"), "w", encoding="utf-8") as f:
            f.write("# Other page\n\n## A `code` heading, with punctuation!\n")
        page = os.path.join(d, "page.md")
        with open(page, "w", encoding="utf-8") as f:
            f.write("# Page\n\n## Twice\n\n## Twice\n\n"
                    "[ok](other.md#a-code-heading-with-punctuation) [ok](#twice-1) [ok](other.md)\n"
                    "`[not a link](nowhere.md)`\n```\n[not a link](nowhere.md)\n```\n"
                    "[bad](missing.md) [bad](#nowhere) [bad](other.md#page)\n")
        found = broken_links(page)
    if len(found) != 3 or not all(":12:" in p for p in found):
        sys.exit("docs_links.py: the self-test expected exactly 3 broken links on line 12, found:\n  "
                 + "\n  ".join(found or ["(none)"]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("pages", nargs="*", help="Markdown files (default: README.md and docs/*.md)")
    args = parser.parse_args()
    self_test()
    root = os.path.abspath(args.root)
    pages = args.pages
    if not pages:
        os.chdir(root)  # pages named as in the repository: README.md, docs/usage.md, ...
        pages = ["README.md"]
        if os.path.isdir("docs"):
            pages += sorted(os.path.join("docs", p) for p in os.listdir("docs") if p.endswith(".md"))
    problems = []
    for page in pages:
        if not os.path.isfile(page):
            problems.append(f"{page}: no such page")
            continue
        problems += broken_links(os.path.relpath(page))
    for p in problems:
        print(p)
    if problems:
        print(f"docs_links.py: {len(problems)} broken link(s) in {len(pages)} page(s)")
        return 1
    print(f"docs_links.py: every relative link of {len(pages)} page(s) resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
