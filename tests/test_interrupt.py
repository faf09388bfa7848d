"""Ctrl-C stops a long BO/BP fit with KeyboardInterrupt (the core checks between runs)."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

SCRIPT = textwrap.dedent(
    """
    import sys, numpy as np, polars as pl, findrs
    rng = np.random.default_rng(0)
    n, m = 20000, 30
    df = pl.DataFrame({f"f{i}": rng.integers(0, 3, n).astype(str) for i in range(m)})
    df = df.with_columns(y=pl.Series(rng.random(n) < 0.5))
    print("ready", flush=True)
    try:
        findrs.fit(df, "y", method="bp", random_state=0, n_jobs=1, settings={"T": 100000})
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(0)
    print("finished", flush=True)
    sys.exit(1)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT delivery differs on Windows")
def test_ctrl_c_interrupts_a_long_bp_fit() -> None:
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(1.0)  # let the fit start its runs
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the fit did not stop after SIGINT")
    assert "interrupted" in out, err
    assert proc.returncode == 0
