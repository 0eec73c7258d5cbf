"""`make test` sets itself up: the `chromium` step (run for real, with apt-get stubbed)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs GNU make")


def make_chromium(**variables):
    args = ["make", "-s", "--no-print-directory", "chromium"]
    args += [f"{k}={v}" for k, v in variables.items()]
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_present_browser_needs_nothing():
    out = make_chromium(CHROMIUM="/bin/sh", APT_GET="false")
    assert out.returncode == 0 and out.stdout == out.stderr == ""


def test_missing_browser_as_root_installs_with_apt_get(tmp_path):
    log = tmp_path / "apt.log"
    stub = tmp_path / "apt-get"
    stub.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    stub.chmod(0o755)
    out = make_chromium(CHROMIUM=tmp_path / "none", APT_GET=stub, USER_ID=0)
    assert out.returncode == 0, out.stderr
    assert log.read_text().splitlines() == ["update -qq", "install -y -qq chromium"]


def test_missing_browser_as_a_user_fails_with_one_line_saying_what_to_install(tmp_path):
    out = make_chromium(CHROMIUM=tmp_path / "none", APT_GET="false", USER_ID=1000)
    assert out.returncode != 0
    lines = [ln for ln in out.stderr.splitlines() if not ln.startswith("make:  ***")]
    lines = [ln for ln in lines if "Error" not in ln]
    assert len(lines) == 1 and "apt-get install chromium" in lines[0]
    assert "test_make" not in out.stdout


def test_ci_is_a_thin_call_of_make_test():
    text = (ROOT / ".ci" / "run").read_text()
    assert "exec make test" in text and "apt-get" not in text
