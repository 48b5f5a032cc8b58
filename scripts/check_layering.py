#!/usr/bin/env python3
"""check_layering.py — check that the build's libraries keep the layering CONTRIBUTING.md writes.

Usage: scripts/check_layering.py --manifest BUILD/layering.json --order CONTRIBUTING.md

Why: every target compiles with the repository root on its include path, so the compiler lets any
file include any header. What keeps the stages apart is a rule, and this script is that rule:

1. Folder = library. Each library in the order owns exactly its folder: every source and header
   the target declares lies under the folder, and every .c/.cpp/.h/.hpp file found under the
   folder (on disk, recursively) is declared by the target, in its sources or in its public or
   private header set. A folder nested in another library's folder belongs to that library.
2. Order. A library links (directly) only libraries written before it in the order; every library
   target named tessera_* (a static library) is in the order, and every name in the order is a
   target.
3. Includes. In every file of every target (libraries, the CLI, tests, benches, plugins), a quoted
   include that resolves to a file owned by another target L must (a) name a target the includer
   links, directly or through the libraries it links, and (b) be one of L's public headers.
   White-box tests are the exception to (b) only: a target whose sources all lie under tests/ or
   bench/ (at the root or in a plugin) may include the private headers of what it links. A file owned by several targets is
   fine if any owner allows it; a file owned by no target is not checked.

Inputs. The manifest is JSON written by CMake's file(GENERATE): "source_dir" and "targets", each
target with "name", "type", "source_dir", and ";"-joined "sources", "public_headers",
"private_headers" (relative to the target's source_dir, or absolute) and "links" (its direct
LINK_LIBRARIES; names that are not targets of the manifest are ignored, $<LINK_ONLY:x> counts as
x). Optional: "binary_dir" (files under it are generated and exempt from rule 1; default: the
manifest's folder) and "aliases" ({"Ns::name": "target"}, for links spelt through an ALIAS).
The order is the fenced block between <!-- layering:begin --> and <!-- layering:end --> in the
order file: one library per line, lowest first, "TARGET FOLDER what it is".

Quoted includes are written from the repository root ("framework/planner/plan.hpp") and resolve
against source_dir first, then the including file's folder. Angle-bracket includes are ignored.

Output: one line per violation, "path:line: message" (path relative to source_dir), and exit 1;
or the summary "layering: N libraries, M files, K includes checked, no violations" and exit 0.
A manifest or order file that cannot be read is exit 2.
"""

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass

CXX_EXTENSIONS = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp")
HEADER_EXTENSIONS = (".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp")
# Where test programs live: tests/ and bench/ at the root, and a plugin's own tests/ and bench/.
WHITE_BOX = re.compile(r"^(tests|bench|plugins/[^/]+/(tests|bench))/")
BEGIN, END = "<!-- layering:begin -->", "<!-- layering:end -->"
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
WRAPPER = re.compile(r"^\$<(?:LINK_ONLY|BUILD_INTERFACE):(.*)>$")


class InputError(Exception):
    """A manifest or order file this script cannot read (exit 2)."""


@dataclass
class Target:
    name: str
    type: str
    sources: set
    public: set
    private: set
    links: list  # direct links that are targets of the manifest

    @property
    def files(self):
        return self.sources | self.public | self.private


@dataclass
class Build:
    source_dir: str
    binary_dir: str
    targets: dict  # name -> Target
    owners: dict  # absolute path -> sorted names of the targets that declare it

    def rel(self, path):
        return os.path.relpath(path, self.source_dir) if under(path, self.source_dir) else path

    def generated(self, path):
        return under(path, self.binary_dir)


@dataclass
class Library:
    """A line of the written order."""
    name: str
    folder: str  # relative to source_dir
    line: int


@dataclass
class Order:
    path: str  # as shown in messages
    begin_line: int
    libraries: list


# --- reading the inputs ----------------------------------------------------------------------

def under(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def is_cxx(path):
    return path.endswith(CXX_EXTENSIONS)


def cmake_list(value):
    """The items of a CMake list ("a;b;;c"), a $<LINK_ONLY:x> or $<BUILD_INTERFACE:x> as x."""
    items = []
    for item in (value or "").split(";"):
        match = WRAPPER.match(item)
        items.append(match.group(1) if match else item)
    return [item for item in items if item]


def paths(value, base):
    """A CMake list of files as absolute paths; other generator expressions are skipped."""
    return {os.path.normpath(os.path.join(base, item))
            for item in cmake_list(value) if not item.startswith("$<")}


def read_json(path):
    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: cannot read the manifest: {error}") from None


def load_manifest(path):
    data = read_json(path)
    if not isinstance(data, dict) or not data.get("source_dir"):
        raise InputError(f"{path}: the manifest has no \"source_dir\"")
    source_dir = os.path.normpath(data["source_dir"])
    binary_dir = os.path.normpath(data.get("binary_dir") or os.path.dirname(os.path.abspath(path)))
    aliases = data.get("aliases") or {}
    targets, raw_links = {}, {}
    for entry in data.get("targets", []):
        name = entry.get("name", "")
        if not name or name in targets:
            raise InputError(f"{path}: a target with no name, or twice: '{name}'")
        base = os.path.normpath(entry.get("source_dir") or source_dir)
        targets[name] = Target(name, entry.get("type", ""), paths(entry.get("sources"), base),
                               paths(entry.get("public_headers"), base),
                               paths(entry.get("private_headers"), base), [])
        raw_links[name] = [aliases.get(item, item) for item in cmake_list(entry.get("links"))]
    for name, links in raw_links.items():
        targets[name].links = [link for link in links if link in targets and link != name]
    owners = {}
    for name in sorted(targets):
        for file in targets[name].files:
            owners.setdefault(file, []).append(name)
    return Build(source_dir, binary_dir, targets, owners)


def load_order(path, build):
    try:
        with open(path, encoding="utf-8") as file:
            lines = file.read().splitlines()
    except OSError as error:
        raise InputError(f"{path}: cannot read the order: {error}") from None
    shown = build.rel(os.path.normpath(os.path.abspath(path)))
    stripped = [line.strip() for line in lines]
    if BEGIN not in stripped or END not in stripped[stripped.index(BEGIN):]:
        raise InputError(f"{shown}: no '{BEGIN}' ... '{END}' block (the order of the libraries)")
    begin = stripped.index(BEGIN)
    end = stripped.index(END, begin)
    libraries, in_fence = [], False
    for number in range(begin + 1, end):
        text = stripped[number]
        if text.startswith("```"):
            in_fence = not in_fence
        elif in_fence and text:
            words = text.split()
            if len(words) < 2:
                raise InputError(f"{shown}:{number + 1}: expected 'TARGET FOLDER what it is'")
            libraries.append(Library(words[0], os.path.normpath(words[1]), number + 1))
    return Order(shown, begin + 1, libraries)


# --- 1. folder = library ---------------------------------------------------------------------

def home_folder(path, folders):
    """The deepest library folder (absolute) that holds path, or None."""
    homes = [folder for folder in folders if under(path, folder)]
    return max(homes, key=len) if homes else None


def files_on_disk(folder, build):
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not build.generated(os.path.join(root, d)))
        for name in sorted(files):
            if is_cxx(name):
                yield os.path.join(root, name)


def check_folders(build, order):
    folders = {os.path.join(build.source_dir, lib.folder): lib for lib in order.libraries}
    for folder, lib in folders.items():
        target = build.targets.get(lib.name)
        if target is None:
            continue  # check_order reports it
        if not os.path.isdir(folder):
            yield (order.path, lib.line,
                   f"{lib.folder}, the folder of {lib.name}, does not exist (fix the line)")
            continue
        yield from check_declared_files(build, lib, target, folder, folders)
        yield from check_files_on_disk(build, lib, target, folder, folders)


def check_declared_files(build, lib, target, folder, folders):
    for path in sorted(target.files):
        if not is_cxx(path) or build.generated(path):
            continue
        home = home_folder(path, folders)
        if home == folder:
            continue
        verb, fix = (("compiled into", "compile it into") if path in target.sources
                     else ("declared by", "declare it in"))
        move = f"move the file under {lib.folder}/"
        hint = f"{fix} {folders[home].name} instead, or {move}" if home else move
        where = build.rel(home or os.path.dirname(path))
        yield build.rel(path), None, f"in folder {where} but {verb} {lib.name} ({hint})"


def check_files_on_disk(build, lib, target, folder, folders):
    for path in files_on_disk(folder, build):
        if path in target.files or home_folder(path, folders) != folder:
            continue
        if path.endswith(HEADER_EXTENSIONS):
            how = "declared by"
            hint = "add it to its public or private header set"
        else:
            how, hint = "compiled into", "add it to its sources, or delete the file"
        yield build.rel(path), None, f"under {lib.folder} but not {how} {lib.name} ({hint})"


# --- 2. order --------------------------------------------------------------------------------

def check_order(build, order):
    yield from check_order_lines(build, order)
    position = {}
    for lib in order.libraries:
        position.setdefault(lib.name, len(position))
    for lib in order.libraries:
        target = build.targets.get(lib.name)
        for link in target.links if target else []:
            if position.get(link, -1) > position[lib.name]:
                yield (order.path, lib.line, f"{lib.name} links {link}, which the order puts "
                       f"after it (drop the link, or move {link} before {lib.name} in the order "
                       "if it really is the lower library)")
    for name, target in sorted(build.targets.items()):
        if is_tessera_library(target) and name not in position:
            yield (order.path, order.begin_line, f"{name} is a library of the build but not in "
                   "the order (add its line where it belongs: target, folder, what it is)")


def is_tessera_library(target):
    """A framework library: static, named tessera_* (plugins are modules, not layers)."""
    return target.name.startswith("tessera_") and target.type == "STATIC_LIBRARY"


def check_order_lines(build, order):
    """Each line names a library target, once, with a folder of its own."""
    names, folders = set(), {}
    for lib in order.libraries:
        target = build.targets.get(lib.name)
        if lib.name in names:
            yield order.path, lib.line, f"{lib.name} is in the order twice (keep one line)"
        elif lib.folder in folders:
            yield (order.path, lib.line, f"{lib.folder} is already the folder of "
                   f"{folders[lib.folder]} (one folder, one library)")
        elif target is None:
            yield (order.path, lib.line, f"{lib.name} is in the order but not a target of the "
                   "build (fix the name, or remove the line)")
        elif not target.type.endswith("_LIBRARY"):
            yield (order.path, lib.line,
                   f"{lib.name} is a {target.type}, not a library (remove the line)")
        names.add(lib.name)
        folders.setdefault(lib.folder, lib.name)


# --- 3. includes -----------------------------------------------------------------------------

def link_closure(build, name):
    """Every target that name links, directly or through the targets it links."""
    seen, stack = set(), list(build.targets[name].links)
    while stack:
        link = stack.pop()
        if link not in seen:
            seen.add(link)
            stack.extend(build.targets[link].links)
    return seen


def white_box(build, target):
    """A test or bench target: all its own (non-generated) sources in WHITE_BOX folders."""
    sources = [s for s in target.sources if is_cxx(s) and not build.generated(s)]
    return bool(sources) and all(
        WHITE_BOX.match(os.path.relpath(s, build.source_dir)) for s in sources)


def quoted_includes(path, build):
    """(line, resolved path or None) for each quoted include of path; None if it is unreadable."""
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            lines = file.read().splitlines()
    except OSError:
        return None  # a generated file not written yet
    found = []
    for number, text in enumerate(lines, 1):
        match = INCLUDE.match(text)
        if match:
            candidates = (os.path.normpath(os.path.join(base, match.group(1)))
                          for base in (build.source_dir, os.path.dirname(path)))
            found.append((number, next((c for c in candidates if os.path.isfile(c)), None)))
    return found


def include_problem(build, includer, header, closure, may_peek):
    """Why includer may not include header (owned by other targets), or None."""
    owners = build.owners[header]
    linked = [owner for owner in owners if owner in closure]
    if not linked:
        names = " or ".join(owners)
        return (f"includes {build.rel(header)} of {names}, which {includer} does not link "
                f"(link {owners[0]} if the order allows it, or move this code to a target that "
                "links it)")
    if may_peek or any(header in build.targets[owner].public for owner in linked):
        return None
    owner = build.targets[linked[0]]
    what = "a private header" if header in owner.private else "not a public header"
    return (f"includes {build.rel(header)}, {what} of {owner.name} (include its public headers "
            f"instead, or add the header to {owner.name}'s public header set)")


def check_includes(build, stats):
    scanned = {}
    for name, target in sorted(build.targets.items()):
        closure, may_peek = link_closure(build, name), white_box(build, target)
        for path in sorted(f for f in target.files if is_cxx(f)):
            if path not in scanned:
                scanned[path] = quoted_includes(path, build)
            for line, header in scanned[path] or []:
                if header not in build.owners or name in build.owners[header]:
                    continue
                problem = include_problem(build, name, header, closure, may_peek)
                if problem:
                    yield build.rel(path), line, problem
    read = [found for found in scanned.values() if found is not None]
    stats["files"], stats["includes"] = len(read), sum(len(found) for found in read)


# --- main ------------------------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", required=True, help="the build's layering.json")
    parser.add_argument("--order", required=True, help="CONTRIBUTING.md (the written order)")
    args = parser.parse_args(argv)
    try:
        build = load_manifest(args.manifest)
        order = load_order(args.order, build)
    except InputError as error:
        print(f"check_layering: {error}", file=sys.stderr)
        return 2
    stats = {}
    found = set(check_folders(build, order)) | set(check_order(build, order))
    found |= set(check_includes(build, stats))
    for path, line, message in sorted(found, key=lambda v: (v[0], v[1] or 0, v[2])):
        print(f"{path}:{line}: {message}" if line else f"{path}: {message}")
    if found:
        print(f"layering: {len(found)} violation(s) of the rules in scripts/check_layering.py "
              f"and the order in {order.path}", file=sys.stderr)
        return 1
    print(f"layering: {len(order.libraries)} libraries, {stats['files']} files, "
          f"{stats['includes']} includes checked, no violations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
