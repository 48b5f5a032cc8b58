#!/usr/bin/env python3
"""Tests of scripts/check_layering.py on the fake tree in tests/layering/fixture/.

Usage: python3 tests/layering/test_check_layering.py [SCRIPT_PATH] [unittest options]
(SCRIPT_PATH defaults to scripts/check_layering.py of this checkout). Exit 0 when every test
passes.

Each test takes the clean manifest (fixture/manifest.json, every rule kept), breaks one rule by
editing a copy, runs the checker as the build would and asserts its exit code and exact output.
"""

import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixture")
ORDER = os.path.join(FIXTURE, "order.md")
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "check_layering.py")
CLEAN_SUMMARY = "layering: 2 libraries, 9 files, 9 includes checked, no violations"


def clean_manifest():
    with open(os.path.join(FIXTURE, "manifest.json"), encoding="utf-8") as file:
        text = file.read()
    return json.loads(text.replace("@FIXTURE@", json.dumps(FIXTURE)[1:-1]))


def target(manifest, name):
    return next(t for t in manifest["targets"] if t["name"] == name)


class CheckLayeringTest(unittest.TestCase):
    def setUp(self):
        self.manifest = clean_manifest()
        self.scratch = tempfile.TemporaryDirectory()
        self.addCleanup(self.scratch.cleanup)

    def run_checker(self, order=ORDER):
        path = os.path.join(self.scratch.name, "layering.json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump(self.manifest, file)
        result = subprocess.run([sys.executable, SCRIPT, "--manifest", path, "--order", order],
                                capture_output=True, text=True, check=False)
        return result.returncode, result.stdout.splitlines(), result.stderr

    def assert_violations(self, *expected):
        code, lines, stderr = self.run_checker()
        self.assertEqual(lines, list(expected))
        self.assertEqual(code, 1, stderr)

    def assert_clean(self):
        code, lines, stderr = self.run_checker()
        self.assertEqual((code, lines, stderr), (0, [CLEAN_SUMMARY], ""))

    # The fixture as it is keeps every rule.

    def test_clean_fixture_passes(self):
        self.assert_clean()

    # 3. Includes

    def test_include_of_a_library_not_linked(self):
        target(self.manifest, "tessera_fixture_b")["links"] = ""
        self.assert_violations(
            "lib_b/b.hpp:4: includes lib_a/a.hpp of tessera_fixture_a, which tessera_fixture_b "
            "does not link (link tessera_fixture_a if the order allows it, or move this code to a "
            "target that links it)")

    def test_include_of_a_private_header(self):
        target(self.manifest, "fixture_tool")["sources"] += ";tool_private_peek.cpp"
        self.assert_violations(
            "tools/tool_private_peek.cpp:4: includes lib_a/a_private.hpp, a private header of "
            "tessera_fixture_a (include its public headers instead, or add the header to "
            "tessera_fixture_a's public header set)")

    def test_public_header_including_a_private_header_is_the_header_s_violation(self):
        lib_a = target(self.manifest, "tessera_fixture_a")
        lib_a["public_headers"], lib_a["private_headers"] = "", "a.hpp;a_private.hpp"
        self.assert_violations(
            "lib_b/b.hpp:4: includes lib_a/a.hpp, a private header of tessera_fixture_a (include "
            "its public headers instead, or add the header to tessera_fixture_a's public header "
            "set)")

    def test_include_relative_to_the_including_file(self):
        target(self.manifest, "fixture_tool")["links"] = "tessera_fixture_b"
        self.assert_violations(
            "tools/tool_main.cpp:3: includes tools/tool_options.hpp of fixture_tool_options, which "
            "fixture_tool does not link (link fixture_tool_options if the order allows it, or "
            "move this code to a target that links it)")

    def test_white_box_test_may_include_a_private_header(self):
        self.assert_clean()  # tests/a_test.cpp includes lib_a/a_private.hpp
        target(self.manifest, "fixture_a_test")["sources"] += ";../tools/tool_private_peek.cpp"
        hint = ("(include its public headers instead, or add the header to tessera_fixture_a's "
                "public header set)")
        self.assert_violations(  # a source outside tests/: no longer a white-box test
            f"tests/a_test.cpp:5: includes lib_a/a_private.hpp, a private header of "
            f"tessera_fixture_a {hint}",
            f"tools/tool_private_peek.cpp:4: includes lib_a/a_private.hpp, a private header of "
            f"tessera_fixture_a {hint}")

    def test_white_box_test_must_link_what_it_includes(self):
        target(self.manifest, "fixture_a_test")["links"] = ""
        hint = ("which fixture_a_test does not link (link tessera_fixture_a if the order allows "
                "it, or move this code to a target that links it)")
        self.assert_violations(
            f"tests/a_test.cpp:3: includes lib_a/a.hpp of tessera_fixture_a, {hint}",
            f"tests/a_test.cpp:5: includes lib_a/a_private.hpp of tessera_fixture_a, {hint}")

    def test_header_owned_by_two_targets_is_fine_if_one_owner_allows_it(self):
        self.manifest["targets"].append({
            "name": "fixture_tool_options_copy", "type": "OBJECT_LIBRARY",
            "source_dir": os.path.join(FIXTURE, "tools"), "sources": "tool_options.cpp",
            "public_headers": "", "private_headers": "tool_options.hpp", "links": ""})
        self.assert_clean()

    def test_generated_sources_aliases_and_foreign_links_are_ignored(self):
        self.manifest["aliases"] = {"Fixture::b": "tessera_fixture_b"}
        target(self.manifest, "fixture_tool")["links"] = (
            "Fixture::b;$<LINK_ONLY:fixture_tool_options>;Threads::Threads;-ldl")
        target(self.manifest, "tessera_fixture_a")["sources"] += (
            ";" + os.path.join(FIXTURE, "build", "fixture_generated.cpp"))
        self.assert_clean()

    # 2. Order

    def test_link_against_the_order(self):
        target(self.manifest, "tessera_fixture_a")["links"] = "tessera_fixture_b"
        self.assert_violations(
            "order.md:7: tessera_fixture_a links tessera_fixture_b, which the order puts after it "
            "(drop the link, or move tessera_fixture_b before tessera_fixture_a in the order if "
            "it really is the lower library)")

    def test_library_missing_from_the_order(self):
        self.manifest["targets"].append({
            "name": "tessera_fixture_c", "type": "STATIC_LIBRARY",
            "source_dir": os.path.join(FIXTURE, "lib_c"), "sources": "", "links": ""})
        self.assert_violations(
            "order.md:5: tessera_fixture_c is a library of the build but not in the order (add "
            "its line where it belongs: target, folder, what it is)")

    def test_order_naming_no_target(self):
        self.manifest["targets"].remove(target(self.manifest, "tessera_fixture_b"))
        self.assert_violations(
            "order.md:8: tessera_fixture_b is in the order but not a target of the build (fix "
            "the name, or remove the line)")

    def test_order_file_without_the_block(self):
        path = os.path.join(self.scratch.name, "no_order.md")
        with open(path, "w", encoding="utf-8") as file:
            file.write("# no layering block here\n")
        code, lines, stderr = self.run_checker(order=path)
        self.assertEqual((code, lines), (2, []))
        self.assertEqual(stderr, f"check_layering: {path}: no '<!-- layering:begin -->' ... "
                         "'<!-- layering:end -->' block (the order of the libraries)\n")

    # 1. Folder = library

    def test_header_in_the_folder_but_not_in_the_target(self):
        target(self.manifest, "tessera_fixture_a")["private_headers"] = ""
        self.assert_violations(
            "lib_a/a_private.hpp: under lib_a but not declared by tessera_fixture_a (add it to its "
            "public or private header set)")

    def test_source_in_the_folder_but_not_in_the_target(self):
        target(self.manifest, "tessera_fixture_b")["sources"] = ""
        self.assert_violations(
            "lib_b/b.cpp: under lib_b but not compiled into tessera_fixture_b (add it to its "
            "sources, or delete the file)")

    def test_source_of_another_library_s_folder(self):
        target(self.manifest, "tessera_fixture_b")["sources"] += ";../lib_a/a.cpp"
        self.assert_violations(
            "lib_a/a.cpp: in folder lib_a but compiled into tessera_fixture_b (compile it into "
            "tessera_fixture_a instead, or move the file under lib_b/)",
            # and compiling it, tessera_fixture_b includes tessera_fixture_a's private header
            "lib_a/a.cpp:6: includes lib_a/a_private.hpp, a private header of tessera_fixture_a "
            "(include its public headers instead, or add the header to tessera_fixture_a's public "
            "header set)")

    def test_header_outside_every_library_folder(self):
        target(self.manifest, "tessera_fixture_b")["public_headers"] += ";../tools/tool_options.hpp"
        self.assert_violations(
            "tools/tool_options.hpp: in folder tools but declared by tessera_fixture_b (move the "
            "file under lib_b/)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        SCRIPT = sys.argv.pop(1)
    unittest.main()
