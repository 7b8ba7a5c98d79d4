#!/usr/bin/env python3
"""Documentation coverage over the symbol graphs swift-docc-plugin extracted (scripts/docs.sh).

Every public symbol declared in Sources/TARGET must have a summary line: its own, or that of the
protocol requirement it implements. Members whose meaning a standard protocol fixes are exempt
(EXEMPT below). A symbol without a
summary fails the run unless scripts/docs-undocumented.txt lists it; a listed symbol that has
gained a summary, or no longer exists, fails the run too, so the list only shrinks.
DOCS_UPDATE_BASELINE=1 rewrites the list instead of failing.

Usage: docs_coverage.py TARGET...
"""

import glob
import json
import os
import sys

# Protocol requirements whose documentation is the protocol's: CustomStringConvertible,
# CustomDebugStringConvertible, CustomReflectable, Hashable, Equatable, RawRepresentable, Codable.
EXEMPT = {
    "description",
    "debugDescription",
    "customMirror",
    "hash(into:)",
    "==(_:_:)",
    "rawValue",
    "init(rawValue:)",
    "encode(to:)",
    "init(from:)",
}
# The plugin writes the graphs under the root package's identity, which is its directory's name
# (the clone's: `remote-auth` in CI, anything in a checkout of one's own): the one folder there
# that holds RemoteAuth's graphs.
_candidates = sorted(
    os.path.dirname(found)
    for found in glob.glob(".build/*/extracted-symbols/*/RemoteAuth")
)
GRAPHS = _candidates[0] if len(_candidates) == 1 else ".build/x86_64-unknown-linux-gnu/extracted-symbols/" + os.path.basename(os.getcwd()).lower()
# Written by `--experimental-documentation-coverage`, one per archive (the plugin leaves the
# archive in outputs/, or in outputs/intermediates/ when it combines them).
DOCC_COVERAGE = [
    ".build/plugins/Swift-DocC/outputs/{}.doccarchive/documentation-coverage.json",
    ".build/plugins/Swift-DocC/outputs/intermediates/{}.doccarchive/documentation-coverage.json",
]
BASELINE = "scripts/docs-undocumented.txt"


def has_summary(symbol):
    # A member that implements a documented protocol requirement inherits its comment (the
    # symbol graph carries it, naming the protocol's module): DocC shows that one.
    comment = symbol.get("docComment")
    return bool(comment) and any(line["text"].strip() for line in comment.get("lines", []))


def survey(target):
    """(public symbols declared in Sources/TARGET, those without a summary) as sorted paths."""
    declared, missing = set(), set()
    files = glob.glob(os.path.join(GRAPHS, target, "*.symbols.json"))
    if not files:
        sys.exit(f"docs: FAILED: no symbol graph for {target} in {GRAPHS}")
    for path in files:
        graph = json.load(open(path))
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            uri = symbol.get("location", {}).get("uri", "")
            if f"/Sources/{target}/" not in uri:
                continue
            name = "/".join(symbol["pathComponents"])
            if symbol["pathComponents"][-1] in EXEMPT:
                continue
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            entry = f"{target}/{name} ({kind})"
            declared.add(entry)
            if not has_summary(symbol):
                missing.add(entry)
    return declared, missing


def docc_coverage(target):
    """DocC's count: (symbols with an abstract, symbols) in the archive, inherited members included."""
    paths = [pattern.format(target) for pattern in DOCC_COVERAGE if os.path.exists(pattern.format(target))]
    if not paths:
        sys.exit(f"docs: FAILED: DocC wrote no documentation-coverage.json for {target}")
    path = max(paths, key=os.path.getmtime)
    entries = [entry for entry in json.load(open(path)) if entry.get("kind", {}).get("isSymbol")]
    return sum(1 for entry in entries if entry.get("hasAbstract")), len(entries)


def main(targets):
    print("docs: DocC's coverage (symbols with an abstract, inherited members such as `!=` included):")
    for target in targets:
        documented, total = docc_coverage(target)
        print(f"  {target:28} {documented:5}/{total:<5} {100.0 * documented / total if total else 100.0:5.1f}%")

    baseline = set()
    if os.path.exists(BASELINE):
        baseline = {line.strip() for line in open(BASELINE) if line.strip() and not line.startswith("#")}
    all_missing = set()
    total_declared = total_missing = 0
    print("docs: public symbols declared in Sources/ with a summary line of their own:")
    for target in targets:
        declared, missing = survey(target)
        all_missing |= missing
        total_declared += len(declared)
        total_missing += len(missing)
        share = 100.0 * (len(declared) - len(missing)) / len(declared) if declared else 100.0
        print(f"  {target:28} {len(declared) - len(missing):5}/{len(declared):<5} {share:5.1f}%")
    share = 100.0 * (total_declared - total_missing) / total_declared if total_declared else 100.0
    print(f"  {'all':28} {total_declared - total_missing:5}/{total_declared:<5} {share:5.1f}%")

    checked = {line for line in baseline if line.split("/", 1)[0] in targets}
    if os.environ.get("DOCS_UPDATE_BASELINE"):
        kept = (baseline - checked) | all_missing
        with open(BASELINE, "w") as file:
            file.write("# Public symbols without a summary line yet (scripts/docs.sh). This list only shrinks:\n")
            file.write("# document a symbol, then remove its line (DOCS_UPDATE_BASELINE=1 bash scripts/docs.sh).\n")
            file.writelines(line + "\n" for line in sorted(kept))
        print(f"docs: {BASELINE} rewritten: {len(kept)} symbols")
        return 0
    new = sorted(all_missing - checked)
    fixed = sorted(checked - all_missing)
    for line in new:
        print(f"docs: no summary: {line}", file=sys.stderr)
    for line in fixed:
        print(f"docs: listed in {BASELINE} but documented or gone: {line}", file=sys.stderr)
    if new or fixed:
        print(
            f"docs: FAILED: {len(new)} public symbols without a summary, {len(fixed)} stale lines in {BASELINE}",
            file=sys.stderr,
        )
        return 1
    print(f"docs: every other public symbol has a summary; {len(checked)} still listed in {BASELINE}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
