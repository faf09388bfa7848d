"""Every ```python block of README.md runs, and prints what the README shows.

The blocks run in order in one namespace (as a reader pastes them into one session), in a
temporary directory, on the built-in data only (no network, no FINDRS_DATA_DIR). A block whose
printed output the README shows is followed by a paragraph that is exactly ``prints`` and a plain
fenced block: that block is the block's standard output, compared exactly. The examples whose
output is shown pass their settings (``method``, ``random_state``) explicitly, so a change of a
default does not change what they print; when an intended change does, regenerate the shown
outputs with

    python tests/test_readme.py --update

(run from the repository root, with findrs installed), and review the diff.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import sys
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
_FENCE = re.compile(r"^```([A-Za-z0-9_+-]*)\s*$")


@dataclass
class Block:
    lang: str
    start: int  # index of the first line inside the fence
    end: int  # index of the closing fence
    text: str
    output: "Block | None" = None  # the block showing what this one prints


def blocks(lines: list[str]) -> list[Block]:
    """The fenced blocks of ``lines``, each python block linked to its shown output."""
    found: list[Block] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        if j == len(lines):
            raise ValueError(f"README.md line {i + 1}: a fence that is never closed")
        found.append(Block(m.group(1), i + 1, j, "".join(lines[i + 1 : j])))
        i = j + 1
    for a, b in zip(found, found[1:]):
        between = "".join(lines[a.end + 1 : b.start - 1]).strip()
        if a.lang == "python" and b.lang == "" and between == "prints":
            a.output = b
    return found


def run_blocks(python: list[Block], commands: list[str] | None = None) -> list[str]:
    """Runs the blocks in order in one namespace; returns each block's standard output. Then
    runs ``commands`` (``findrs ...`` command lines) in the same directory, returning their
    exit statuses after the outputs, as text."""
    namespace: dict[str, object] = {"__name__": "__readme__"}
    outputs = []
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            for block in python:
                out = io.StringIO()
                code = compile(block.text, f"README.md:{block.start + 1}", "exec")
                with contextlib.redirect_stdout(out):
                    exec(code, namespace)
                outputs.append(out.getvalue())
            for line in commands or []:
                from findrs.cli import main

                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                    code = main(shlex.split(line)[1:])
                outputs.append(f"{code} {err.getvalue().strip()}")
        finally:
            os.chdir(cwd)
    return outputs


def test_readme_python_blocks_run_and_print_what_is_shown(monkeypatch) -> None:
    monkeypatch.delenv("FINDRS_DATA_DIR", raising=False)
    python = [b for b in blocks(README.read_text().splitlines(keepends=True)) if b.lang == "python"]
    assert len(python) >= 3, "the README's Python examples were not found"
    assert any(b.output is not None for b in python)
    for block, printed in zip(python, run_blocks(python)):
        if block.output is not None:
            assert printed == block.output.text, (
                f"README.md line {block.start + 1}: the example prints\n{printed}\nbut the README shows\n"
                f"{block.output.text}\n(regenerate with: python tests/test_readme.py --update)"
            )
        else:
            assert printed == "", f"README.md line {block.start + 1} prints output the README does not show"


def test_readme_command_lines_run_on_the_file_the_python_example_writes(monkeypatch) -> None:
    """The command-line block: every ``findrs`` line whose data file the Python examples wrote
    (games.parquet) runs with status 0; the one reading UCI's car.data needs the download."""
    monkeypatch.delenv("FINDRS_DATA_DIR", raising=False)
    found = blocks(README.read_text().splitlines(keepends=True))
    python = [b for b in found if b.lang == "python"]
    lines = [
        line.strip()
        for b in found
        if b.lang == "" and b.text.strip() and all(x.startswith("findrs ") for x in b.text.strip().splitlines())
        for line in b.text.strip().splitlines()
    ]
    runnable = [line for line in lines if "car.data" not in line]
    assert len(runnable) >= 5 and any(" fit " in line for line in runnable), lines
    statuses = run_blocks(python, runnable)[len(python):]
    for line, status in zip(runnable, statuses):
        assert status.startswith("0 "), f"README command `{line}` failed: {status}"


def test_every_output_block_belongs_to_a_python_block() -> None:
    lines = README.read_text().splitlines(keepends=True)
    found = blocks(lines)
    shown = {id(b.output) for b in found if b.output is not None}
    for a, b in zip(found, found[1:]):
        between = "".join(lines[a.end + 1 : b.start - 1]).strip()
        if between == "prints":
            assert id(b) in shown, f"README.md line {b.start}: an output block after a {a.lang or 'plain'} block"


def test_ci_runs_the_readme_set_up_commands_verbatim() -> None:
    """The README's two set-up commands (install + demo, install + tests) are what .ci/run runs."""
    plain = [b.text.strip() for b in blocks(README.read_text().splitlines(keepends=True)) if b.lang == ""]
    demo, tests = 'pip install . && findrs demo', 'pip install ".[test]" && pytest'
    assert demo in plain and tests in plain
    ci = (README.parent / ".ci" / "run").read_text()
    verbatim = re.search(r"# --- the README's test command, verbatim ---\n(.*)\n# ---\n", ci)
    assert verbatim is not None and verbatim.group(1) == tests
    assert f"\n{demo}\n" in ci


# User documentation says what findrs does now, not the history of how it got there: no dates,
# no issue, stop or branch names, no commit hashes (the lab notebook's figures keep their commands).
USER_DOCS = [README] + [README.parent / "docs" / name for name in (
    "algorithms.md", "development.md", "distributed.md", "json-format.md", "layout.md",
    "reference.md", "reproducing.md", "speed.md")]
_HISTORY = re.compile(
    r"\b20\d\d-\d\d-\d\d\b|\b(?:issue|stop|branch|PR)s?\s*#?\d+|\bbranch(?:es)?\b|\bmain (?:of|[0-9a-f]{7})\b"
    r"|\b(?:on|of|against) main\b|\bmain's\b|\b[0-9a-f]{7,40}\b(?<![0-9]{7})",
    re.IGNORECASE,
)


def test_readme_is_a_short_guide() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move details into docs/ (at most 250)"
    example = next(i for i, line in enumerate(lines) if line.startswith("```python"))
    assert example < 45, f"the first example starts at README.md line {example + 1}: keep it near the top"


def test_user_docs_carry_no_history() -> None:
    found = [
        f"{doc.relative_to(README.parent)}:{n}: {m.group(0)!r}"
        for doc in USER_DOCS
        for n, line in enumerate(doc.read_text().splitlines(), 1)
        for m in _HISTORY.finditer(line)
    ]
    assert not found, "dates, issue/stop/branch names or commit hashes in user documentation:\n" + "\n".join(found)


def update() -> None:
    """Rewrites the README's shown outputs with what the blocks print now."""
    lines = README.read_text().splitlines(keepends=True)
    python = [b for b in blocks(lines) if b.lang == "python"]
    for block, printed in reversed(list(zip(python, run_blocks(python)))):
        if block.output is not None:
            lines[block.output.start : block.output.end] = [printed if printed.endswith("\n") or not printed else printed + "\n"]
    README.write_text("".join(lines))
    print(f"updated the shown outputs of {README}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/test_readme.py --update   (rewrites README.md's shown outputs)")
    update()
