"""The example notebook runs top to bottom: its code cells, in order, in one
namespace (what nbclient would do, without a kernel)."""

import json
import os
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_the_example_notebook_runs_top_to_bottom(monkeypatch):
    nb = json.loads((EXAMPLES / "hpl.ipynb").read_text())
    monkeypatch.chdir(EXAMPLES)
    ns: dict = {"__name__": "__main__"}
    cells = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert cells
    for i, c in enumerate(cells):
        code = "".join(c["source"])
        exec(compile(code, f"hpl.ipynb cell {i}", "exec"), ns)
    assert "<svg" in ns["a"]._repr_html_()
    assert len(ns["e"].series) == 4
    assert ns["r"].verdict.startswith("Best: dropping") and ns["en"].json["predictions"]
    assert ns["d"].summary().startswith("Answer (* = extrapolated)") and len(ns["d"].families) > 1
