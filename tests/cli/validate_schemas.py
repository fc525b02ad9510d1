#!/usr/bin/env python3
"""Validates the --json documents the CLI tests kept against docs/schema/ (one process for all).

  validate_schemas.py --clear DIR                       empty DIR (ctest's cli_json_clear)
  validate_schemas.py --schemas docs/schema --header engine/include/bloomcodec/verify.h DIR

tests/cli/cli_runner.cc keeps the standard output of every `verify`, `inspect`, `convert` and
`repair` run with --json in DIR as COMMAND.TEST.XXXXXX.json. Each is validated against
COMMAND.schema.json (python3-jsonschema, draft 2020-12). The run fails when a document does not
validate, when a command has fewer documents than its floor below (so that a broken capture
cannot pass by validating nothing), and when verify's schema lists other finding kinds than
namespace finding_kind of the library's bloomcodec/verify.h.
"""
import argparse
import json
import os
import re
import shutil
import sys

import jsonschema

# The fewest documents a whole ctest run keeps per command (it keeps several times more).
FLOORS = {"verify": 60, "inspect": 100, "convert": 20, "repair": 2}


def kinds_in_header(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    begin = text.index("namespace finding_kind {")
    end = text.index("}  // namespace finding_kind")
    return re.findall(r'std::string_view k\w+ = "([a-z-]+)"', text[begin:end])


def load_schemas(folder):
    validators = {}
    for command in FLOORS:
        with open(os.path.join(folder, command + ".schema.json"), encoding="utf-8") as f:
            schema = json.load(f)
        jsonschema.Draft202012Validator.check_schema(schema)
        validators[command] = jsonschema.Draft202012Validator(schema)
    return validators


def where(error):
    return "/" + "/".join(str(p) for p in error.absolute_path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clear", action="store_true")
    parser.add_argument("--schemas")
    parser.add_argument("--header")
    parser.add_argument("dir")
    args = parser.parse_args()
    if args.clear:
        shutil.rmtree(args.dir, ignore_errors=True)
        os.makedirs(args.dir)
        return 0

    validators = load_schemas(args.schemas)
    problems = []
    code = kinds_in_header(args.header)
    schema = validators["verify"].schema["$defs"]["kind"]["enum"]
    if sorted(code) != sorted(schema):
        problems.append("verify.schema.json's finding kinds differ from bloomcodec/verify.h's: "
                        "only in the code %s, only in the schema %s" %
                        (sorted(set(code) - set(schema)), sorted(set(schema) - set(code))))

    counts = {command: 0 for command in FLOORS}
    names = sorted(os.listdir(args.dir)) if os.path.isdir(args.dir) else []
    for name in names:
        command = name.split(".", 1)[0]
        if command not in validators:
            problems.append("%s: no schema for command %s" % (name, command))
            continue
        counts[command] += 1
        path = os.path.join(args.dir, name)
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except ValueError as e:
            problems.append("%s: not one JSON document: %s" % (name, e))
            continue
        for error in sorted(validators[command].iter_errors(doc), key=lambda e: e.path):
            problems.append("%s: at %s: %s" % (name, where(error), error.message[:300]))

    for command, floor in FLOORS.items():
        print("%s: %d documents validated against %s.schema.json" % (command, counts[command], command))
        if counts[command] < floor:
            problems.append("%s: only %d documents kept in %s, expected at least %d: run the whole "
                            "suite (ctest), which runs this test after every other" %
                            (command, counts[command], args.dir, floor))
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
