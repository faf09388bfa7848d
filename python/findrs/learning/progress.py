"""The progress line of ``verbose=True`` fits: finished runs, elapsed and remaining time.

Invariant: one line on stderr that updates in place and ends with exactly one newline, however
often the core reports the same count (it reports the last one twice: from its polling loop and
once the fit returns), and also when the fit stops early (``close``, after Ctrl-C or an
error). With tqdm installed the line is tqdm's bar; otherwise a plain one.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO


def _clock(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) as tqdm prints times."""
    s = int(round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class PlainProgress:
    r"""A plain progress line: ``findrs: [#####.....] 50/100 runs  0:03 elapsed, 0:03 left``.

    Called with ``(done, total)``; repeated or decreasing counts are ignored, and the line ends
    with a newline once, when ``done`` reaches ``total``.

    Example:
        >>> import io
        >>> out = io.StringIO()
        >>> bar = PlainProgress(out, clock=iter([0.0, 2.0, 4.0]).__next__)
        >>> bar(1, 2); bar(2, 2); bar(2, 2)
        >>> for line in out.getvalue().split("\r")[1:]:
        ...     print(repr(line))
        'findrs: [###############...............] 1/2 runs  0:02 elapsed, 0:02 left'
        'findrs: [##############################] 2/2 runs  0:04 elapsed           \n'
    """

    def __init__(self, stream: TextIO | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._clock = clock
        self._start = clock()
        self._done = -1
        self._closed = False
        self._width = 0

    def __call__(self, done: int, total: int) -> None:
        if self._closed or done <= self._done:
            return
        self._done = done
        elapsed = self._clock() - self._start
        filled = 30 * done // max(total, 1)
        line = f"findrs: [{'#' * filled}{'.' * (30 - filled)}] {done}/{total} runs  {_clock(elapsed)} elapsed"
        if 0 < done < total:
            line += f", {_clock(elapsed / done * (total - done))} left"
        pad = " " * max(self._width - len(line), 0)
        self._width = max(self._width, len(line))
        self._closed = done >= total
        self._stream.write("\r" + line + pad + ("\n" if self._closed else ""))
        self._stream.flush()

    def close(self) -> None:
        """Ends the line (once) if the fit stopped before its last run."""
        if not self._closed:
            self._closed = True
            if self._done >= 0:
                self._stream.write("\n")
                self._stream.flush()


class TqdmProgress:
    """The same reports shown by a ``tqdm`` bar (elapsed, remaining time and rate are tqdm's).
    The bar appears at the first report, which gives its total; its clock starts when this
    object is made (when the fit starts)."""

    def __init__(self, tqdm: type) -> None:
        self._tqdm = tqdm
        self._start = time.time()  # tqdm's clock
        self._bar = None
        self._done = 0
        self._closed = False

    def __call__(self, done: int, total: int) -> None:
        if self._closed:
            return
        if self._bar is None:
            self._bar = self._tqdm(total=total, desc="findrs", unit="run", file=sys.stderr, leave=True)
            if hasattr(self._bar, "start_t"):
                self._bar.start_t = self._start
        if done > self._done:
            self._bar.update(done - self._done)
            self._done = done
        if done >= total:
            self.close()

    def close(self) -> None:
        """Closes the bar (once), also when the fit stopped before its last run."""
        if not self._closed:
            self._closed = True
            if self._bar is not None:
                self._bar.close()


def progress_bar() -> PlainProgress | TqdmProgress:
    """The ``(done, total)`` callback a ``verbose=True`` fit reports to: tqdm's bar when tqdm
    is installed, :class:`PlainProgress` otherwise."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return PlainProgress()
    return TqdmProgress(tqdm)
