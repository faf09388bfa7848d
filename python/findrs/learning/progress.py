r"""The progress line of ``verbose=True`` fits: the stage that runs, its finished runs, the fit's
elapsed time and an estimate of the stage's remaining time.

A fit runs in stages: each cross-validation of the automatic settings (one per encoding it
compares), the final fit on all rows, the cross-validation of the BP vote, that of rules with
exceptions. The fit starts each with :func:`stage`, which returns the ``(done, total)`` callable
the core reports that stage's finished runs to. The line reads::

    findrs: cross-validation 2 of 3: supervised bins [######....] 54/84 runs  0:12 elapsed, stage ~0:03 left

(the elapsed time is the fit's, the estimate the stage's: its elapsed time over its finished
runs, times the runs left). It is drawn again at every report and, by a daemon timer thread,
four times a second in between, so the elapsed time moves even while the core reports nothing
(a final fit of a few long runs; the core releases the GIL while it works). A stage whose runs
are not counted (a FIND-RS fit of one run, the class sets of a multiclass fit) shows its name
and the elapsed time.

The core counts the best of ``best_of`` runs of a FIND-RS final fit (docs/semantics.md §5.3) as
its last run and reports each of them as ``(total, total)`` when it ends: a stage told
``best_of`` counts those reports, so the line shows ``7/20 runs`` of a best-of-20 fit (a report
is lost when two runs end within one of the core's 50 ms polls: then the count lags and the
estimate is too long, never too short).

Invariant: one line on stderr that updates in place and ends with exactly one newline: ``done
in m:ss`` when the fit ends (:meth:`finish`), the state it stopped in when it stops early
(:meth:`close`, after Ctrl-C or an error), however often the core reports the same count (it
reports the last one twice: from its polling loop and once the fit returns). Nothing is written
after that newline (the timer stops first, and writes under the same lock as the reports). With
tqdm installed tqdm draws the line (a widget in notebooks); otherwise a plain one.

Example:
    >>> import io
    >>> out, now = io.StringIO(), [0.0]
    >>> line = PlainProgress(out, clock=lambda: now[0], tick=None)
    >>> report = line.stage("cross-validation 1 of 2: equal-width bins")
    >>> now[0] = 2.0; report(21, 84)
    >>> now[0] = 8.0; report(84, 84); report(84, 84)
    >>> report = line.stage("final fit: best of 20 runs", best_of=20)
    >>> now[0] = 10.0; report(1, 1)
    >>> now[0] = 12.0; report(1, 1)
    >>> line.finish()
    >>> for state in out.getvalue().split("\r")[1:]:
    ...     print(state.rstrip())
    findrs: cross-validation 1 of 2: equal-width bins  0:00 elapsed
    findrs: cross-validation 1 of 2: equal-width bins [##........] 21/84 runs  0:02 elapsed, stage ~0:06 left
    findrs: cross-validation 1 of 2: equal-width bins [##########] 84/84 runs  0:08 elapsed
    findrs: final fit: best of 20 runs  0:08 elapsed
    findrs: final fit: best of 20 runs [..........] 1/20 runs  0:10 elapsed, stage ~0:38 left
    findrs: final fit: best of 20 runs [#.........] 2/20 runs  0:12 elapsed, stage ~0:36 left
    findrs: done in 0:12
    >>> out.getvalue().count("\n"), out.getvalue().endswith("\n")
    (1, True)
"""

from __future__ import annotations

import functools
import shutil
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, TextIO

Report = Callable[[int, int], None]
"""What the core reports a stage's finished runs to: ``(done, total)``."""

RECENT = 8
"""The last reports whose pace the estimate also reads (:meth:`_Stage.left`)."""

TICK = 0.25
"""Seconds between two draws of the timer thread: the elapsed time moves every second while a
stage runs (a draw that would write the same text writes nothing)."""


def _clock(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) as tqdm prints times."""
    s = int(round(max(seconds, 0.0)))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


@dataclass
class _Stage:
    """One stage: its name, the runs the core counts as its last one (``best_of``), when it
    started, and the core's last report (``total`` ``None`` before the first)."""

    label: str
    best_of: int
    start: float
    total: int | None = None
    done: int = -1
    repeats: int = 0  # reports of (total, total): the runs of a best-of fit that ended
    seen: list[tuple[float, int]] | None = None  # (time, runs counted) at each counted report

    def report(self, done: int, total: int) -> bool:
        """Takes a report; ``False`` when it changes nothing (repeated or decreasing)."""
        if total != self.total:  # the first report, or another core call of the stage
            self.total, self.done, self.repeats = total, -1, 0
        if done >= total:
            if self.done >= total and self.repeats >= self.best_of:
                return False
            self.done, self.repeats = total, self.repeats + 1
            return True
        if done <= self.done:
            return False
        self.done = done
        return True

    def saw(self, now: float) -> None:
        """Notes when the runs counted now were reached (for :meth:`left`)."""
        c = self.counts()
        if c is not None:
            self.seen = [*(self.seen or [])[-RECENT + 1:], (now, c[0])]

    def left(self, now: float) -> float | None:
        """The estimated seconds left: the runs left times the seconds per run, the larger of
        the stage's average and that of its last :data:`RECENT` reports (the runs of one stage
        may cost more and more: a halved cross-validation's last runs are on the whole sample,
        docs/semantics.md §9.4), counting the wait since the last report as part of the next
        run. ``None`` before a run ends or after the last.

        Example:
            >>> st = _Stage("cv", 1, 0.0)
            >>> for t, d in ((1.0, 5), (2.0, 10), (6.0, 11)):
            ...     _ = st.report(d, 20); st.saw(t)
            >>> round(st.left(6.0), 1)  # 9 runs left: 4.9 s at the average pace, 7.5 at the recent one
            7.5
            >>> round(st.left(10.0), 1)  # no report for 4 s: the next run takes at least that
            36.0
        """
        c = self.counts()
        if c is None or not 0 < c[0] < c[1]:
            return None
        done, total = c
        rate = (now - self.start) / done
        seen = self.seen or []
        if len(seen) >= 2 and seen[-1][1] > seen[0][1]:
            rate = max(rate, (seen[-1][0] - seen[0][0]) / (seen[-1][1] - seen[0][1]))
        if seen:
            rate = max(rate, now - seen[-1][0])
        return rate * (total - done)

    def counts(self) -> tuple[int, int] | None:
        """(runs finished, runs) as the line shows them; ``None`` while not counted."""
        if self.total is None or self.total <= 0 or self.done < 0:
            return None
        total = self.total - 1 + self.best_of
        if self.done < self.total:
            return self.done, total
        return self.total - 1 + min(self.repeats, self.best_of), total


@dataclass
class _View:
    """What one draw shows: the stage's name, its counts (``None``: not counted) and its times."""

    label: str
    counts: tuple[int, int] | None
    times: str


class _Line:
    """The stages, the reports, the timer and the lock; :class:`PlainProgress` and
    :class:`TqdmProgress` draw it (``_show``)."""

    def __init__(self, clock: Callable[[], float], tick: float | None) -> None:
        self._clock = clock
        self._start = clock()
        self._tick = tick
        self._lock = threading.RLock()
        self._stage: _Stage | None = None
        self._id = 0
        self._shown = False
        self._closed = False
        self._stop = threading.Event()
        self._timer: threading.Thread | None = None

    def stage(self, what: str, best_of: int = 1) -> Report:
        """Starts the stage ``what`` (the one before ends) and returns the ``(done, total)``
        callable its runs are reported to (reports of an earlier stage are ignored).
        ``best_of``: the runs the core counts as its last one (a FIND-RS final fit's).

        Example:
            >>> import io
            >>> out = io.StringIO()
            >>> line = PlainProgress(out, clock=lambda: 0.0, tick=None)
            >>> report = line.stage("cross-validation 1 of 1: equal-width bins")
            >>> report(3, 12); line.close()
            >>> out.getvalue().split("\\r")[-1].rstrip()
            'findrs: cross-validation 1 of 1: equal-width bins [##........] 3/12 runs  0:00 elapsed, stopped'
        """
        with self._lock:
            if self._closed:
                return _ignore
            now = self._clock()
            self._id += 1
            self._stage = _Stage(what, max(int(best_of), 1), now)
            self._draw(now)
            report = functools.partial(self._report, self._id)
        self._start_timer()
        return report

    def __call__(self, done: int, total: int) -> None:
        """A report to the current stage (a stage ``fit`` if none started)."""
        with self._lock:
            if self._stage is None and not self._closed:
                self._id += 1
                self._stage = _Stage("fit", 1, self._clock())
            self._report(self._id, done, total)

    def _report(self, stage_id: int, done: int, total: int) -> None:
        with self._lock:
            if self._closed or stage_id != self._id or self._stage is None:
                return
            if self._stage.report(int(done), int(total)):
                now = self._clock()
                self._stage.saw(now)
                self._draw(now)
        self._start_timer()

    def refresh(self) -> None:
        """Draws the line again (the elapsed time and the estimate move); what the timer calls.

        Example:
            >>> import io
            >>> out, now = io.StringIO(), [0.0]
            >>> line = PlainProgress(out, clock=lambda: now[0], tick=None)
            >>> _ = line.stage("final fit: one run")
            >>> now[0] = 3.0; line.refresh(); line.finish()
            >>> out.getvalue().split("\\r")[2].rstrip()
            'findrs: final fit: one run  0:03 elapsed'
        """
        with self._lock:
            if not self._closed and self._stage is not None:
                self._draw(self._clock())

    def finish(self) -> None:
        """Ends the line (once) after a fit that ended: ``findrs: done in m:ss``.

        Example:
            >>> import io
            >>> out = io.StringIO()
            >>> line = PlainProgress(out, clock=lambda: 0.0, tick=None)
            >>> _ = line.stage("fit: 30 BP runs"); line.finish(); line.finish()
            >>> out.getvalue().split("\\r")[-1].strip()
            'findrs: done in 0:00'
        """
        self._end(lambda now: f"findrs: done in {_clock(now - self._start)}")

    def close(self) -> None:
        """Ends the line (once) as it stands, ``stopped``: the fit stopped early (Ctrl-C, an
        error). Nothing is written when nothing was.

        Example:
            >>> import io
            >>> out = io.StringIO()
            >>> PlainProgress(out, clock=lambda: 0.0, tick=None).close()
            >>> out.getvalue()
            ''
        """
        self._end(lambda now: self._text(now, stopped=True))

    def _end(self, text: Callable[[float], str]) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._shown:
                now = self._clock()
                self._show(_View(text(now), None, ""), end=True)
        self._stop.set()
        timer = self._timer
        if timer is not None and timer is not threading.current_thread():
            timer.join(timeout=5)

    def _start_timer(self) -> None:
        with self._lock:
            if self._tick is None or self._timer is not None or self._closed:
                return
            self._timer = threading.Thread(target=self._run_timer, name="findrs-progress", daemon=True)
            self._timer.start()

    def _run_timer(self) -> None:
        tick = self._tick or TICK
        while not self._stop.wait(tick):
            try:
                self.refresh()
            except Exception:  # a stream closed under it: the reports still draw (and raise)
                return

    def _view(self, now: float, stopped: bool = False) -> _View:
        st = self._stage
        assert st is not None
        counts = st.counts()
        times = f"{_clock(now - self._start)} elapsed"
        if counts is not None:
            done, total = counts
            left = st.left(now)
            if left is not None and not stopped:
                times += f", stage ~{_clock(left)} left"
        return _View(f"findrs: {st.label}", counts, times + (", stopped" if stopped else ""))

    def _text(self, now: float, stopped: bool = False) -> str:
        return _plain(self._view(now, stopped), None)

    def _draw(self, now: float) -> None:
        self._shown = True
        self._show(self._view(now), end=False)

    def _show(self, view: _View, end: bool) -> None:  # pragma: no cover - the subclasses'
        raise NotImplementedError


def _ignore(done: int, total: int) -> None:
    """The report of a stage started after the line ended."""


def _plain(view: _View, width: int | None) -> str:
    """The plain line of ``view``, at most ``width - 1`` characters when ``width`` is given (a
    line wider than the terminal wraps, and ``\\r`` then redraws the last row only): the bar
    goes first, then "cross-validation" is written "CV", then the end of the stage's name.

    Example:
        >>> view = _View("findrs: cross-validation 1 of 3: equal-width bins", (45, 84), "0:05 elapsed")
        >>> _plain(view, 80)
        'findrs: cross-validation 1 of 3: equal-width bins 45/84 runs  0:05 elapsed'
        >>> _plain(view, 64)
        'findrs: CV 1 of 3: equal-width bins 45/84 runs  0:05 elapsed'
    """
    tail = f"  {view.times}" if view.times else ""
    bar = ""
    if view.counts is not None:
        done, total = view.counts
        filled = 10 * done // max(total, 1)
        bar = f" [{'#' * filled}{'.' * (10 - filled)}]"
        tail = f" {done}/{total} runs{tail}"
    label = view.label
    for text in (label + bar + tail, label + tail, label.replace("cross-validation", "CV") + tail):
        if width is None or len(text) < width:
            return text
    label = label.replace("cross-validation", "CV")
    room = width - 1 - len(tail)
    if room < 12:
        return text[: width - 1]
    return label[: room - 1].rstrip() + "…" + tail


class PlainProgress(_Line):
    r"""The line drawn as text on ``stream`` (stderr): redrawn with ``\r``, padded over a longer
    one before it, ended with one newline.

    Args:
        stream: where to write (default ``sys.stderr``).
        clock: seconds, for the elapsed time (default ``time.monotonic``).
        tick: seconds between the timer's draws; ``None``: no timer thread.
        width: the terminal's columns the line stays within; default: the terminal's when
            ``stream`` is one, else no limit.

    Example:
        >>> import io
        >>> out, now = io.StringIO(), [0.0]
        >>> line = PlainProgress(out, clock=lambda: now[0], tick=None, width=80)
        >>> report = line.stage("cross-validation 2 of 3: supervised bins")
        >>> now[0] = 6.0; report(54, 84)
        >>> out.getvalue().split("\r")[-1]
        'findrs: CV 2 of 3: supervised bins 54/84 runs  0:06 elapsed, stage ~0:03 left'
    """

    def __init__(self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic,
                 tick: float | None = TICK, width: int | None = None) -> None:
        super().__init__(clock, tick)
        self._stream = stream if stream is not None else sys.stderr
        if width is None and getattr(self._stream, "isatty", lambda: False)():
            width = shutil.get_terminal_size((80, 24)).columns
        self._width = width
        self._written = 0
        self._last = ""

    def _show(self, view: _View, end: bool) -> None:
        line = _plain(view, None if end else self._width)
        if line == self._last and not end:
            return
        pad = " " * max(self._written - len(line), 0)
        self._written = max(self._written, len(line))
        self._last = line
        self._stream.write("\r" + line + pad + ("\n" if end else ""))
        self._stream.flush()


class TqdmProgress(_Line):
    """The same line drawn by a ``tqdm`` bar (its bar characters, its fit to the terminal's
    width, its widget in notebooks): the stage's name, the bar of its runs, then the same
    counts and times as :class:`PlainProgress`. The bar appears with the first stage.

    Example:
        >>> import io
        >>> from tqdm import tqdm
        >>> out = io.StringIO()
        >>> line = TqdmProgress(lambda **kw: tqdm(**{**kw, "file": out}), clock=lambda: 0.0, tick=None)
        >>> line.stage("fit: 30 BP runs")(15, 30); line.finish()
        >>> "fit: 30 BP runs" in out.getvalue() and "15/30 runs" in out.getvalue()
        True
        >>> out.getvalue().split("\\r")[-1].strip()
        'findrs: done in 0:00'
    """

    def __init__(self, tqdm: Callable[..., Any], clock: Callable[[], float] = time.monotonic,
                 tick: float | None = TICK) -> None:
        super().__init__(clock, tick)
        self._tqdm = tqdm
        self._bar: Any = None
        self._last: tuple[Any, ...] = ()

    def _show(self, view: _View, end: bool) -> None:
        times = view.times.replace("{", "{{").replace("}", "}}")
        fmt = "{desc}  " + times if times else "{desc}"
        if view.counts is not None:
            fmt = "{desc} |{bar}| {n_fmt}/{total_fmt} runs  " + times
        new = self._bar is None
        if new:
            self._bar = self._tqdm(total=None, desc=view.label, unit="run", file=sys.stderr, leave=True,
                                   smoothing=0, mininterval=0, dynamic_ncols=True, bar_format=fmt)
        bar = self._bar
        bar.desc, bar.bar_format = view.label, fmt
        if view.counts is not None:
            done, total = view.counts
            if bar.total != total:
                bar.reset(total=total)  # a notebook's widget takes the new range too
            bar.n = done
        state = (view.label, fmt, bar.n, bar.total)
        if (state == self._last or new and view.counts is None) and not end:  # (tqdm drew it when made)
            self._last = state
            return
        self._last = state
        if end:
            bar.close()  # draws the line once more, then the newline
        else:
            bar.refresh()


def progress_bar() -> PlainProgress | TqdmProgress:
    """The progress line of a ``verbose=True`` fit: tqdm's bar when tqdm is installed,
    :class:`PlainProgress` otherwise.

    Example:
        >>> line = progress_bar()
        >>> isinstance(line, (PlainProgress, TqdmProgress))
        True
        >>> line.close()  # nothing shown: nothing written
    """
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return PlainProgress()
    return TqdmProgress(tqdm)


def stage(progress: _Line | None, what: str, best_of: int = 1) -> Report | None:
    """The ``(done, total)`` callable of a new stage ``what`` of the line ``progress``
    (:meth:`PlainProgress.stage`); ``None`` (the core reports nothing) without a line.

    Example:
        >>> stage(None, "cross-validation 1 of 3: equal-width bins") is None
        True
    """
    return None if progress is None else progress.stage(what, best_of)


_EDGES = {"uniform": "equal-width bins", "quantile": "quantile bins", "supervised": "supervised bins"}


def encoding_words(params: Mapping[str, Any]) -> str:
    """How ``params`` encode numeric columns, in a stage's name.

    Example:
        >>> encoding_words({"numeric": "bins", "bin_edges": "supervised"})
        'supervised bins'
        >>> encoding_words({"numeric": "interval", "bin_edges": "uniform"})
        'intervals'
    """
    if params["numeric"] == "interval":
        return "intervals"
    return _EDGES.get(params["bin_edges"], f"{params['bin_edges']} bins")


def fit_stage(progress: _Line | None, params: Mapping[str, Any], what: str | None = None, of: str = "") -> Report | None:
    """The stage of a fit of ``params`` (:func:`stage`), named ``what`` (default: ``fit``, or
    ``cross-validation and final fit`` with automatic settings), ``of`` what (when given), and
    the runs it makes: the best of ``best_of`` FIND-RS runs (counted, :class:`_Stage`) or ``T``
    BO / BP runs.

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> line = PlainProgress(out, clock=lambda: 0.0, tick=None)
        >>> _ = fit_stage(line, {"method": "find-rs", "best_of": 20, "auto": ["tolerance"]})
        >>> out.getvalue().strip()
        'findrs: cross-validation and final fit (best of 20 runs)  0:00 elapsed'
    """
    if what is None:
        what = "cross-validation and final fit" if params.get("auto") else "fit"
    if of:
        what += f" of {of}"
    best_of = 1
    if params["method"] == "find-rs":
        best_of = int(params.get("best_of") or 1)
        runs = f" (best of {best_of} runs)" if best_of > 1 else ""
    else:
        runs = f" ({params['T']} {str(params['method']).upper()} runs)"
    return stage(progress, what + runs, best_of)
