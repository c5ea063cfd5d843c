#!/usr/bin/env python3
"""List the library's public surface from rustdoc's JSON output.

An equivalent of `cargo public-api` that needs only a nightly rustdoc:

    cargo +nightly rustdoc --lib -- -Z unstable-options --output-format json
    python3 scripts/public-api.py target/doc/errband.json [--summary]

Walks from the crate root through every public module and prints one line
per public item: modules, structs and their public fields, enums and
their variants, traits, functions, constants, statics, type aliases,
re-exports, and the methods and associated items of inherent impls.
Items marked `#[doc(hidden)]` are left out (rustdoc drops them), as are
trait implementations (derived and blanket ones would drown the list).
With `--summary`, prints the count per kind and per top-level module.
"""
import json
import sys
from collections import Counter


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    d = json.load(open(sys.argv[1]))
    index = d["index"]
    root = index[str(d["root"])]
    lines = []

    def item(i):
        return index.get(str(i))

    def public(it):
        return it is not None and it.get("visibility") in ("public", "default")

    def walk(it, path):
        kind, inner = next(iter(it["inner"].items()))
        name = it.get("name")
        here = f"{path}::{name}" if path and name else (name or path)
        if kind == "module":
            if path:
                lines.append(("mod", here))
            for c in inner["items"]:
                ci = item(c)
                if public(ci):
                    walk(ci, here)
        elif kind == "use":
            lines.append(("use", f"{path}::{inner['name']} (= {inner['source']})"))
        elif kind in ("struct", "enum", "trait"):
            lines.append((kind, here))
            if kind == "struct":
                k = inner["kind"]
                ids, sub, sep = (k.get("plain", {}).get("fields", []) if isinstance(k, dict) else []), "field", "."
            elif kind == "enum":
                ids, sub, sep = inner["variants"], "variant", "::"
            else:
                ids, sub, sep = inner["items"], "trait item", "::"
            for i in ids:
                it2 = item(i)
                # Fields must be `pub`; variants and trait items are public
                # with their type.
                if it2 and (sub != "field" or it2.get("visibility") == "public"):
                    lines.append((sub, f"{here}{sep}{it2['name']}"))
            impls(inner.get("impls", []), here)
        elif kind in ("function", "constant", "static", "type_alias", "macro"):
            lines.append((kind, here))
        else:
            lines.append((kind, here))

    def impls(ids, here):
        for i in ids:
            ii = item(i)
            if not ii:
                continue
            imp = ii["inner"]["impl"]
            if imp.get("trait") is not None or imp.get("blanket_impl") is not None or imp.get("is_synthetic"):
                continue
            for m in imp["items"]:
                mi = item(m)
                if public(mi) and mi.get("visibility") == "public":
                    k = next(iter(mi["inner"]))
                    lines.append(("method" if k == "function" else k, f"{here}::{mi['name']}"))

    walk(root, "")
    lines = sorted(set(lines), key=lambda kv: (kv[1], kv[0]))
    if "--summary" in sys.argv:
        print(f"{len(lines)} public items")
        for k, n in Counter(k for k, _ in lines).most_common():
            print(f"  {n:5}  {k}")
        mods = Counter(p.split("::")[1] if p.count("::") >= 2 else "(crate root)" for _, p in lines)
        print(f"{sum(1 for k, _ in lines if k == 'mod')} public modules; items per top-level module:")
        for m, n in sorted(mods.items()):
            print(f"  {n:5}  {m}")
    else:
        for k, p in lines:
            print(f"pub {k} {p}")


if __name__ == "__main__":
    main()
