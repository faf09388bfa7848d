"""The ``findrs`` command line.

``findrs demo`` fits FIND-RS on the built-in tic-tac-toe endgames (a seed-0 50/50 split) and
prints the rules (the 8 winning lines for x) and the test accuracy; no download needed.

``findrs fit`` learns a model from a CSV or Parquet file and saves it as JSON; ``findrs predict``,
``findrs explain`` and ``findrs rules`` use a saved model. Errors about the input (a missing file,
a bad model, a missing column) print one ``findrs: error: ...`` line and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import warnings
from functools import partial
from pathlib import Path
from typing import Any, Sequence

import polars as pl

from . import datasets
from .models.bagged import BaggedModel
from .learning.bagging import fit_bagged
from .models import all_rows
from .models.base import Model
from .models.loader import load
from .errors import FindRSInputError
from .models.exceptions import ExceptionsModel
from .learning.learn import fit
from .settings import FIT_KEYWORDS, TABLE, _cli_int, add_cli_options

_EXAMPLES = """examples:
  findrs demo                 FIND-RS on tic-tac-toe, rules and test accuracy
  findrs demo --method bp     the same with FIND-RS-BP (T=100)
  findrs fit games.csv --target class --positive positive -o model.json
  findrs predict model.json new_games.parquet -o predicted.parquet
  findrs explain model.json new_games.csv --top 3
  findrs rules model.json

Run "findrs COMMAND --help" for the options of each command.
"""

_FIT_EXAMPLES = """examples:
  findrs fit games.csv --target class --positive positive -o model.json
      one FIND-RS run describing the rows whose class is "positive", its encoding, tolerance,
      min_support, direction and simplification chosen by cross-validation on DATA
  findrs fit games.csv --target class --positive positive --paper -o paper.json
      the paper's algorithm: one FIND-RS run, AV encoding, tolerance 0
  findrs fit games.parquet --target class --method bp --T 100 --random-state 0 --paper -o bp.json
      the paper's FIND-RS-BP over 100 runs, the best K rules kept automatically
  findrs fit data.csv --target y --method bo --encoding oh --tolerance 2 --features a,b,c -o m.json
  findrs fit cars.csv --target class --method bp -o cars.json
      a target of more than two classes: one rule set per class (--multiclass auto)

DATA is read by its extension: .csv, .tsv, .parquet / .pq, .arrow / .ipc / .feather, and .data /
.txt as CSV. A CSV without a header row (UCI's .data files) needs --no-header: its columns are
then column_1 ... column_N, e.g.
  findrs fit car.data --no-header --target column_7 --positive unacc -o car.json
A boolean target's positive class is true; with exactly two labels the greater one is positive
unless --positive says otherwise. With more labels, --positive learns that class against the rest;
without it the model is multiclass: one rule set per class, combined as --multiclass says
(auto, the default: chosen by cross-validation; frequent-first, rarest-first or one-vs-rest).
"""

_PREDICT_EXAMPLES = """examples:
  findrs predict model.json new.parquet -o predicted.parquet
  findrs predict model.json new.csv -o predicted.csv
  findrs predict model.json new.csv -o - | head      CSV on standard output

The output is DATA with one more column, <target>_predicted.
"""

_EXPLAIN_EXAMPLES = """examples:
  findrs explain model.json new.csv
  findrs explain model.json new.parquet --top 1

For each row: the prediction, the decision value (above 0 exactly where the prediction is positive),
for a row predicted negative the nearest rule and the conditions it fails, and the voting rules
that fire on the row (id, weight, text), heaviest first.
"""

_RULES_EXAMPLES = """examples:
  findrs rules model.json

Prints the model, then its rules: id, weight (how many runs found the rule), whether it votes
(BP keeps the best K), training positives and negatives covered, and the rule's text.
"""


class _CLIError(Exception):
    """An error reported as one ``findrs: error:`` line."""


# --------------------------------------------------------------------------- input / output
_READERS = {
    ".csv": "csv", ".tsv": "tsv", ".parquet": "parquet", ".pq": "parquet",
    ".arrow": "ipc", ".ipc": "ipc", ".feather": "ipc",
}
# Read only (never written): UCI's files, comma-separated, usually without a header row.
_INPUT_ONLY = {".data": "csv", ".txt": "csv"}


def _format_of(path: str, what: str) -> str:
    formats = _READERS if what == "output file" else {**_READERS, **_INPUT_ONLY}
    fmt = formats.get(Path(path).suffix.lower())
    if fmt is None:
        raise _CLIError(
            f"cannot tell the format of {what} {path!r} from its extension; use one of "
            f"{', '.join(sorted(formats))}"
        )
    return fmt


def _read_frame(path: str, schema: dict[str, pl.DataType] | None = None, *, header: bool = True) -> pl.DataFrame:
    """Reads DATA by extension; CSV columns named in ``schema`` get those dtypes (the model's).
    ``header=False``: a CSV without a header row, its columns named ``column_1`` ... ``column_N``."""
    fmt = _format_of(path, "data file")
    if not Path(path).is_file():
        raise _CLIError(f"data file {path!r} not found")
    if fmt in ("csv", "tsv"):
        sep = "\t" if fmt == "tsv" else ","
        names = pl.read_csv(path, n_rows=1 if not header else 0, separator=sep, has_header=header).columns
        if not header:
            # Our own names, the same in every Polars version (their defaults changed).
            names = [f"column_{i + 1}" for i in range(len(names))]
        overrides = {c: t for c, t in (schema or {}).items() if c in names} or None
        return pl.read_csv(
            path, separator=sep, infer_schema_length=None, schema_overrides=overrides, has_header=header,
            new_columns=None if header else names,
        )
    if not header:
        raise _CLIError(f"--no-header applies to CSV files; {path!r} is {fmt}, which names its columns")
    if fmt == "parquet":
        return pl.read_parquet(path)
    return pl.read_ipc(path)


def _scan_frame(path: str, *, header: bool = True) -> pl.DataFrame | pl.LazyFrame:
    """DATA to fit on: a Parquet or Arrow IPC file as a lazy scan (a fit on more rows than it
    learns on never holds the file, docs/semantics.md §13), CSV read as :func:`_read_frame`."""
    fmt = _format_of(path, "data file")
    if fmt not in ("parquet", "ipc") or not Path(path).is_file() or not header:
        return _read_frame(path, header=header)
    return pl.scan_parquet(path) if fmt == "parquet" else pl.scan_ipc(path)


def _check_target(df: pl.DataFrame | pl.LazyFrame, target: str, header: bool) -> None:
    """A target that is not a column: the columns, and the two usual causes."""
    columns = list(df.collect_schema())
    if target in columns:
        return
    shown = columns[:12] + (["..."] if len(columns) > 12 else [])
    hint = (
        "a file without a header row (such as UCI's .data files) needs --no-header, which names "
        f"the columns column_1 ... column_{len(columns)}"
        if header
        else f"with --no-header the columns are column_1 ... column_{len(columns)}"
    )
    raise _CLIError(f"--target {target!r} is not a column of DATA; its columns are {shown}; {hint}")


# findrs.fit's parameters as the command line spells them, for messages written in Python terms.
_CLI_NAMES = {"positive": "--positive", "target": "--target", "auto": "--auto",
              **{p.name: p.flag for p in TABLE if p.cli is not False}}
_PARAM_RE = re.compile(r"(?<![\w.(\[])(" + "|".join(sorted(_CLI_NAMES, key=len, reverse=True)) + r")=(?!=)")


def _cli_terms(message: str) -> str:
    """``positive=<label>`` -> ``--positive <label>``: a message of the library in the
    command line's terms (only parameter names followed by ``=``; code such as
    ``pl.col('y') > 1`` is left as it is)."""
    return _PARAM_RE.sub(lambda m: _CLI_NAMES[m.group(1)] + " ", message)


def _load_model(path: str) -> Model:
    if not Path(path).is_file():
        raise _CLIError(f"model file {path!r} not found")
    return load(Path(path))


def _training_schema(model: Model) -> dict[str, pl.DataType]:
    """The feature dtypes at fit time, so that a CSV reads back as the model expects."""
    simple = {
        "String": pl.String, "Categorical": pl.String, "Boolean": pl.Boolean, "Float32": pl.Float32,
        "Float64": pl.Float64, "Int8": pl.Int8, "Int16": pl.Int16, "Int32": pl.Int32, "Int64": pl.Int64,
        "UInt8": pl.UInt8, "UInt16": pl.UInt16, "UInt32": pl.UInt32, "UInt64": pl.UInt64,
    }
    out: dict[str, pl.DataType] = {}
    for enc in model.encoders:
        dtype = simple.get(enc.dtype.split("(")[0])
        if dtype is not None:
            out[enc.name] = dtype
    return out


def _write_frame(df: pl.DataFrame, path: str) -> None:
    if path == "-":
        sys.stdout.write(df.write_csv())
        return
    fmt = _format_of(path, "output file")
    if fmt == "csv":
        df.write_csv(path)
    elif fmt == "tsv":
        df.write_csv(path, separator="\t")
    elif fmt == "parquet":
        df.write_parquet(path)
    else:
        df.write_ipc(path)


def _parse_label(df: pl.DataFrame | pl.LazyFrame, target: str, text: str | None) -> Any:
    """``--positive`` as a value of the target column's type."""
    schema = df.collect_schema()
    if text is None or target not in schema:
        return text
    dtype = schema[target]
    try:
        if dtype == pl.Boolean:
            low = text.strip().lower()
            if low in ("true", "1", "yes"):
                return True
            if low in ("false", "0", "no"):
                return False
            raise ValueError(text)
        if dtype.is_integer():
            return int(text)
        if dtype.is_float():
            return float(text)
    except ValueError:
        raise _CLIError(f"--positive {text!r} is not a value of target column {target!r} ({dtype})") from None
    return text


# --------------------------------------------------------------------------- commands
def _demo(args: argparse.Namespace) -> int:
    df = datasets.tic_tac_toe()
    train, test = datasets.train_test_split(df, test_fraction=0.5, seed=0)
    start = time.perf_counter()
    model = fit(train, "class", "positive", method=args.method, random_state=args.seed, settings={"encoding": args.encoding})
    elapsed = time.perf_counter() - start
    print(f"tic-tac-toe endgames: {train.height} training rows, {test.height} test rows (seed-0 50/50 split)")
    print(model)
    print(f"test accuracy: {model.score(test):.4f}   fit time: {elapsed * 1e3:.1f} ms")
    return 0


def _fit(args: argparse.Namespace) -> int:
    if args.auto and args.paper:
        raise _CLIError("--auto (the default) and --paper (the paper's algorithm) exclude each other; give one")
    df = _scan_frame(args.data, header=args.header)
    _check_target(df, args.target, args.header)
    given = {p.name: getattr(args, p.name) for p in TABLE if hasattr(args, p.name) and p.cli is not False}
    if given.get("features") == []:
        raise _CLIError("--features lists no column")
    keywords = {k: v for k, v in given.items() if k in FIT_KEYWORDS}
    settings = {k: v for k, v in given.items() if k not in FIT_KEYWORDS}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        model = (partial(fit_bagged, n_estimators=args.bagged) if args.bagged else fit)(
            df, args.target, _parse_label(df, args.target, args.positive), auto=not args.paper, **keywords,
            settings=settings,
        )
        elapsed = time.perf_counter() - start
    for w in caught:
        print(f"findrs: warning: {_cli_terms(str(w.message))}", file=sys.stderr)
    model.to_json(args.output)
    print(model)
    counted = all_rows.record(model)
    if counted is not None:  # learned on a sample, counted on every row (docs/semantics.md §13)
        rows, accuracy = counted["rows"], counted["correct"] / max(counted["rows"], 1)
    else:
        df = df.collect() if isinstance(df, pl.LazyFrame) else df
        rows, accuracy = df.height, model.score(df)
    print(f"fitted on {rows} rows in {elapsed:.2f} s; training accuracy {accuracy:.4f}")
    print(f"model saved to {args.output}")
    return 0


def _predict(args: argparse.Namespace) -> int:
    if args.output != "-":
        _format_of(args.output, "output file")
    model = _load_model(args.model)
    df = _read_frame(args.data, _training_schema(model), header=args.header)
    pred = model.predict(df)
    out = df.with_columns(pred.alias(f"{model.target.name}_predicted"))
    _write_frame(out, args.output)
    if args.output != "-" and model.classes is not None:
        counts = pred.value_counts(sort=True)
        shown = ", ".join(f"{v!r}: {n}" for v, n in counts.iter_rows())
        print(f"{df.height} rows, predicted {model.target.name}: {shown}; written to {args.output}")
    elif args.output != "-":
        n_pos = int(model.predict(df, labels=False).sum())
        print(f"{df.height} rows, {n_pos} predicted {model.target.name} = {model.target.positive!r}; written to {args.output}")
    return 0


def _explain(args: argparse.Namespace) -> int:
    model = _load_model(args.model)
    df = _read_frame(args.data, _training_schema(model), header=args.header)
    if isinstance(model, ExceptionsModel):
        return _explain_exceptions(model, df)
    if isinstance(model, BaggedModel):
        return _explain_bagged(model, df)
    table = model.explain(df)
    name = model.target.name
    positive = model.target.positive
    weights = model.rules["weight"].to_list()
    voting = "rules" if model.method == "find-rs" else "voting rules"
    multi = model.classes is not None
    if multi:
        table = table.with_columns(nearest_rule=pl.lit(None), failed_conditions=pl.lit(None))
    else:
        table = table.with_columns(fired_classes=pl.col("fired_rules").list.eval(pl.lit(None)))
    columns = (
        f"{name}_predicted", f"{name}_decision", "fired_rules", "fired_texts", "fired_classes", "nearest_rule",
        "failed_conditions",
    )
    lines = []
    for i, (label, decision, ids, texts, classes, nearest, failed) in enumerate(table.select(columns).iter_rows()):
        if multi:
            # Multiclass: the combination's class (no single decision value, docs/semantics.md §10).
            lines.append(f"row {i}: {name} = {label!r}")
            said = None
        elif model.target.negative is None:
            # One class against the rest: the prediction is "is it the positive class?".
            said = f"{name} = {positive!r}" if label else f"{name} != {positive!r}"
        else:
            said = f"{name} = {label!r}"
        if said is not None:
            lines.append(f"row {i}: {said}  decision {decision:+.4f}")
        if nearest is not None:
            lines.append(f"  nearest rule #{nearest} fails: {'; '.join(failed)}")
        if not ids:
            lines.append(f"  no {voting[:-1]} fires")
            continue
        shown = len(ids) if args.top is None else min(args.top, len(ids))
        lines.append(f"  {len(ids)} of {model.n_rules} {voting} fire:")
        for rid, text, cls in zip(ids[:shown], texts[:shown], classes[:shown]):
            weight = "" if model.method == "find-rs" else f"  weight {weights[rid]}"
            owner = f"  class {cls!r}" if multi else ""
            lines.append(f"    #{rid}{owner}{weight}  {text}")
        if shown < len(ids):
            lines.append(f"    ... and {len(ids) - shown} more")
    print("\n".join(lines))
    return 0


def _explain_exceptions(model: ExceptionsModel, df: pl.DataFrame) -> int:
    """``explain`` of a rules-with-exceptions model: per row the label, the rule that decided a
    positive row, or the exception that overrode the holding rules."""
    name = model.target.name
    table = model.explain(df)
    lines = []
    cols = (f"{name}_predicted", "fired_rules", "fired_exceptions", "deciding_rule", "deciding_text",
            "overriding_exception", "overriding_text")
    for i, (label, ids, exc, rid, rtext, sid, stext) in enumerate(table.select(cols).iter_rows()):
        lines.append(f"row {i}: {name} = {label!r}")
        if rid is not None:
            lines.append(f"  rule #{rid} holds and none of its exceptions: {rtext}")
        elif sid is not None:
            lines.append(f"  {len(ids)} rule(s) hold ({', '.join(f'#{r}' for r in ids)}), overridden by exception "
                         f"e{sid}: {stext}")
        else:
            lines.append("  no rule holds")
    print("\n".join(lines))
    return 0


def _explain_bagged(model: BaggedModel, df: pl.DataFrame) -> int:
    """``explain`` of a bagged vote: per row the label, the members' votes and the rules behind
    them, for and against the positive label."""
    name = model.target.name
    table = model.explain(df)
    lines = []
    for i, (label, votes, fors, againsts) in enumerate(
            table.select(f"{name}_predicted", f"{name}_votes", "rules_for", "rules_against").iter_rows()):
        lines.append(f"row {i}: {name} = {label!r}  ({votes} of {model.n_estimators} members vote "
                     f"{model.target.positive!r})")
        for side, texts in (("for", fors), ("against", againsts)):
            for t in texts:
                lines.append(f"  {side}: {t}")
    print("\n".join(lines))
    return 0


def _rules(args: argparse.Namespace) -> int:
    model = _load_model(args.model)
    if isinstance(model, BaggedModel):
        print(model.to_text(max_rules=None))  # every distinct rule, most shared first
        return 0
    print(model)
    print()
    if isinstance(model, ExceptionsModel):
        return 0  # the text lists every rule and exception
    rules = model.rules
    multi = model.classes is not None
    header = ["id", *(["class"] if multi else []), "weight", "votes", "train_pos", "train_neg", "rule"]
    rows = [
        [
            str(r["id"]),
            *([str(r["label"])] if multi else []),
            str(r["weight"]),
            "yes" if r["kept"] else "no",
            str(r["train_positives"]),
            str(r["train_negatives"]),
            r["text"],
        ]
        for r in rules.iter_rows(named=True)
    ]
    widths = [max([len(header[j])] + [len(row[j]) for row in rows]) for j in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [row[j].rjust(widths[j]) for j in range(len(widths))]
        print("  ".join(cells + [row[-1]]))
    return 0


# --------------------------------------------------------------------------- parser
def _header_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-header", dest="header", action="store_false",
        help="the CSV file has no header row (UCI's .data files): its columns are named column_1 ... column_N",
    )


def build_parser() -> argparse.ArgumentParser:
    """The ``findrs`` command's argument parser (``demo``, ``fit``, ``predict``, ``explain``,
    ``rules``).

    Raises:
        SystemExit: from ``parse_args`` on bad usage or ``--help`` (argparse's behaviour).

    Example:
        >>> from findrs.cli import build_parser
        >>> args = build_parser().parse_args(["fit", "car.data", "--no-header", "--target", "column_7", "-o", "m.json"])
        >>> args.header, args.target, args.data
        (False, 'column_7', 'car.data')
    """
    parser = argparse.ArgumentParser(
        prog="findrs",
        description="Learn readable rule sets (FIND-RS, FIND-RS-BO, FIND-RS-BP) from tables.",
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    raw = argparse.RawDescriptionHelpFormatter

    demo = sub.add_parser("demo", help="fit on the built-in tic-tac-toe data and print the rules")
    demo.add_argument("--method", choices=["find-rs", "bo", "bp"], default="find-rs")
    demo.add_argument("--encoding", choices=["av", "oh"], default="av")
    demo.add_argument("--seed", type=int, default=0, help="random_state of the fit (default 0)")
    demo.set_defaults(handler=_demo)

    p = sub.add_parser(
        "fit", help="learn a model from a CSV or Parquet file and save it as JSON",
        description="Learn a rule model from DATA and save it as JSON.", epilog=_FIT_EXAMPLES, formatter_class=raw,
    )
    p.add_argument("data", metavar="DATA", help="training data (.csv, .tsv, .data, .txt, .parquet, .arrow)")
    _header_option(p)
    p.add_argument("--target", required=True, metavar="COL", help="the label column")
    p.add_argument("--positive", metavar="V", help="the label the rules describe (read as the target's type)")
    p.add_argument("--auto", action="store_true", help="the default, kept for old scripts: settings not given are chosen by cross-validation on DATA")
    p.add_argument("--paper", action="store_true", help="the paper's algorithm: settings not given take the paper's values (av, 0, 0, positive, no simplification)")
    add_cli_options(p)  # one option per parameter of findrs.fit, from findrs.settings.TABLE
    p.add_argument("--bagged", type=_cli_int, default=None, metavar="N",
                   help="the majority vote of N fits, each on a stratified bootstrap sample of DATA, with the "
                        "settings above (docs/semantics.md 12; N times the cost of one fit); two classes, or --positive")
    p.add_argument("-o", "--output", required=True, metavar="model.json", help="where to save the model")
    p.set_defaults(handler=_fit)

    p = sub.add_parser(
        "predict", help="add the model's predictions to a data file",
        description="Predict DATA with a saved model.", epilog=_PREDICT_EXAMPLES, formatter_class=raw,
    )
    p.add_argument("model", metavar="MODEL", help="model JSON written by findrs fit")
    p.add_argument("data", metavar="DATA", help="data to predict (.csv, .tsv, .data, .txt, .parquet, .arrow)")
    _header_option(p)
    p.add_argument("-o", "--output", default="-", metavar="out.parquet|out.csv|-", help="output file by extension; - writes CSV to standard output (default)")
    p.set_defaults(handler=_predict)

    p = sub.add_parser(
        "explain", help="per row: prediction, decision value and the rules that fire",
        description="Explain the model's prediction of each row of DATA.", epilog=_EXPLAIN_EXAMPLES, formatter_class=raw,
    )
    p.add_argument("model", metavar="MODEL", help="model JSON written by findrs fit")
    p.add_argument("data", metavar="DATA", help="data to explain (.csv, .tsv, .data, .txt, .parquet, .arrow)")
    _header_option(p)
    p.add_argument("--top", type=_cli_int, default=None, metavar="N", help="show at most N fired rules per row (default all)")
    p.set_defaults(handler=_explain)

    p = sub.add_parser(
        "rules", help="print a saved model and its rules table",
        description="Print a saved model and its rules.", epilog=_RULES_EXAMPLES, formatter_class=raw,
    )
    p.add_argument("model", metavar="MODEL", help="model JSON written by findrs fit")
    p.set_defaults(handler=_rules)
    return parser


def _one_line(e: BaseException) -> str:
    if isinstance(e, OSError) and e.strerror and e.filename:
        return f"{e.strerror}: {e.filename!r}"
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    if not lines:
        return type(e).__name__
    # Polars adds hint paragraphs after the first line; findrs messages are one line already.
    return lines[0] if isinstance(e, pl.exceptions.PolarsError) else " ".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``findrs`` command: runs it with ``argv`` (default: the process's
    arguments) and returns the exit status.

    Returns:
        0 on success; 2 after an error about the input, printed to stderr as one
        ``findrs: error: ...`` line in the command line's terms (``--positive``, not
        ``positive=``); 130 after Ctrl-C.

    Raises:
        SystemExit: bad usage or ``--help`` (argparse's exit, status 2 or 0).

    Example:
        >>> from findrs.cli import main
        >>> main(["fit", "no-such-file.csv", "--target", "class", "-o", "model.json"])
        2
    """
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except BrokenPipeError:
        # e.g. `findrs predict ... -o - | head`: stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (_CLIError, FindRSInputError, OSError, pl.exceptions.PolarsError, json.JSONDecodeError) as e:
        text = _one_line(e)
        print(f"findrs: error: {_cli_terms(text) if isinstance(e, FindRSInputError) else text}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("findrs: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
