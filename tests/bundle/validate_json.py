"""Validates a JSON document against a JSON Schema (draft 2020-12).

usage: validate_json.py SCHEMA DOCUMENT
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
document = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(schema)
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(document),
                key=lambda e: list(e.path))
for e in errors:
    print(f"{sys.argv[2]}: {'/'.join(map(str, e.path))}: {e.message}")
sys.exit(1 if errors else 0)
