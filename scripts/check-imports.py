#!/usr/bin/env python3
"""Fails when a Swift file imports a module its target does not declare in Package.swift, uses `@_exported`, or
when a client or support library links a service's engine.

SwiftPM lets a target import any module its dependencies bring along, so a missing line goes unnoticed until
someone trims a dependency. This reads the manifest (`swift package dump-package`) and every target's sources,
and lists each import of a module that is neither a declared dependency (target or product) nor the toolchain's.

    python3 scripts/check-imports.py [--package-path DIR]    # exit 0: all declared; 1: the undeclared, one a line
"""
import argparse
import json
import os
import re
import subprocess
import sys

# The toolchain's and the platform's modules, which no manifest declares.
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking", "Dispatch",
    "Synchronization", "Testing", "XCTest", "Glibc", "Musl", "Darwin", "Android", "WinSDK", "ucrt", "os", "_Concurrency",
    "_StringProcessing", "RegexBuilder", "Observation", "Distributed", "CoreFoundation", "PackageDescription",
    "PackagePlugin", "Swift", "System",
}
# The services' engines, and the targets that must not link one (directly or through their dependencies): what a
# plugin or tickwire-proxy links stays small. Only the mocks (TickwireMocks) and the services run the engines.
ENGINES = {"Conversion", "PortfolioEngine", "RatesFetcherEngine"}
ENGINE_FREE = {"TickwireStack", "TickwireClients", "ServiceSupport", "ProxyCore", "tickwire-proxy", "TickwireFeeds"}
# Products that vend more modules than the one of their name (swift-distributed-tracing's Tracing re-exports Instrumentation).
PRODUCT_MODULES = {
    "Tracing": {"Tracing", "Instrumentation"},
}
IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
                    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def declared_names(dependency):
    """The module names one manifest dependency entry allows."""
    kind, value = next(iter(dependency.items()))
    name = value[0]
    if kind == "product":
        return PRODUCT_MODULES.get(name, {name})
    return {name}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package-path", default=".")
    root = os.path.abspath(parser.parse_args().package_path)
    manifest = json.loads(subprocess.run(["swift", "package", "dump-package", "--package-path", root],
                                         check=True, capture_output=True, text=True).stdout)
    problems = []
    for target in manifest["targets"]:
        if target["type"] in ("system", "plugin", "binary", "macro"):
            continue
        allowed = SYSTEM | {target["name"]}
        for dependency in target.get("dependencies", []):
            allowed |= declared_names(dependency)
        default = "Tests" if target["type"] == "test" else ("Services" if target["type"] == "executable" else "Sources")
        path = os.path.join(root, target.get("path") or os.path.join(default, target["name"]))
        for directory, _, files in os.walk(path):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                source = os.path.join(directory, file)
                with open(source, encoding="utf-8") as handle:
                    for number, line in enumerate(handle, 1):
                        if "@_exported" in line:
                            problems.append(f"{os.path.relpath(source, root)}:{number}: @_exported hides what a file uses")
                        match = IMPORT.match(line)
                        if match and match.group(1) not in allowed:
                            problems.append(f"{os.path.relpath(source, root)}:{number}: {target['name']} imports "
                                            f"{match.group(1)}, which Package.swift does not declare for it")
    internal = {target["name"]: target for target in manifest["targets"]}

    def linked(name):
        """The package's own targets `name` reaches through its dependencies."""
        seen, stack = set(), [name]
        while stack:
            for dependency in internal[stack.pop()].get("dependencies", []):
                kind, value = next(iter(dependency.items()))
                if kind in ("byName", "target") or (kind == "product" and value[1] is None):
                    if value[0] in internal and value[0] not in seen:
                        seen.add(value[0])
                        stack.append(value[0])
        return seen

    for name in sorted(ENGINE_FREE & internal.keys()):
        for engine in sorted(linked(name) & ENGINES):
            problems.append(f"Package.swift: {name} links the engine {engine}; only TickwireMocks and the services may")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
