"""One line for every failure a user can cause, secrets redacted, tracebacks on --debug (issue 24)."""

from __future__ import annotations

import errno
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from almanac import cli
from almanac.core import stage
from almanac.core.errors import declare_secret_env, describe, redact
from almanac.core.io import write_text

ROOT = Path(__file__).resolve().parents[1]


def test_redact_masks_env_secrets_url_credentials_tokens_and_key_shapes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-0123456789abcdef")
    monkeypatch.setenv("HF_TOKEN", "hf_QWERTYUIOPASDFGHJKLzxcv")
    monkeypatch.setenv("MY_LAB_LLM", "lab-credential-42")  # a name that does not look secret ...
    declare_secret_env("MY_LAB_LLM")  # ... until a params key names it
    monkeypatch.setenv("SHORT_TOKEN", "abc")  # too short to mask without garbling messages
    text = (
        "key sk-live-0123456789abcdef refused; token hf_QWERTYUIOPASDFGHJKLzxcv; lab lab-credential-42; "
        "GET https://bob:s3cret@hub.example/x?access_token=zzz123&page=2 with Authorization: Bearer abcdefgh1234 "
        "stray hf_ABCDEFGHIJKLMNOPQRSTUV and sk-proj-ABCDEFGHIJKLMNOPQR; abc stays"
    )
    assert redact(text) == (
        "key *** refused; token ***; lab ***; "
        "GET https://***@hub.example/x?access_token=***&page=2 with Authorization: Bearer *** "
        "stray *** and ***; abc stays"
    )


def test_redact_leaves_ordinary_messages_alone() -> None:
    line = "params.yaml: foresight.qgen.questions_per_article must be >= 1, got 0"
    assert redact(line) == line


def test_a_full_disk_names_the_file_being_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def write_to_a_full_disk(self: Path, data: str, encoding: str | None = None) -> int:
        with open("/dev/full", "w", encoding="utf-8") as handle:  # the kernel's own ENOSPC
            return handle.write(data)

    monkeypatch.setattr(Path, "write_text", write_to_a_full_disk)
    target = tmp_path / "metrics" / "stage.json"
    with pytest.raises(OSError) as raised:
        write_text("{}", target)
    assert raised.value.errno == errno.ENOSPC
    assert describe(raised.value) == f"no space left on the device writing {target}"
    assert [p.name for p in target.parent.iterdir()] == []  # no temporary left behind


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_network_error_names_the_host() -> None:
    with pytest.raises(requests.ConnectionError) as raised:
        requests.get(f"http://127.0.0.1:{_closed_port()}/v1/models", timeout=5)
    line = describe(raised.value)
    assert line.startswith("cannot reach 127.0.0.1: ") and "\n" not in line


def test_cli_prints_one_line_and_shows_the_traceback_on_debug(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def full_disk(args: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device", "reports/status.md")

    monkeypatch.setattr(cli, "_status", full_disk)
    monkeypatch.delenv("ALMANAC_DEBUG", raising=False)
    assert cli.main(["status"]) == 1
    assert (
        capsys.readouterr().err == "almanac status: no space left on the device writing reports/status.md\n"
    )
    with pytest.raises(OSError):
        cli.main(["--debug", "status"])
    monkeypatch.setenv("ALMANAC_DEBUG", "1")
    with pytest.raises(OSError):
        cli.main(["status"])


def test_an_unexpected_error_is_one_line_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def bug(args: object) -> int:
        raise TypeError("unsupported operand")

    monkeypatch.setattr(cli, "_status", bug)
    monkeypatch.delenv("ALMANAC_DEBUG", raising=False)
    assert cli.main(["status"]) == 1
    assert capsys.readouterr().err == "almanac status: unsupported operand\n"


def _hooked(monkeypatch: pytest.MonkeyPatch) -> list[BaseException]:
    """Install the stage hook over a recording "previous" hook (the traceback printer)."""
    printed: list[BaseException] = []
    monkeypatch.setattr(sys, "excepthook", lambda kind, error, trace: printed.append(error))
    stage.report_stage_errors_in_one_line("qgen@2025-05")
    return printed


def test_stage_hook_prints_user_failures_in_one_line_and_bugs_in_full(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ALMANAC_DEBUG", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-abcdefghijklmnop")
    printed = _hooked(monkeypatch)
    full = OSError(errno.ENOSPC, "No space left on device", "data/x.parquet")
    offline = requests.ConnectionError("HTTPSConnectionPool(host='api.example.org', port=443): refused")
    key = stage.StageError("llm role generator: key sk-test-abcdefghijklmnop refused (401)")
    for error in (full, offline, key):
        sys.excepthook(type(error), error, None)
    assert capsys.readouterr().err.splitlines() == [
        "qgen@2025-05: no space left on the device writing data/x.parquet",
        "qgen@2025-05: cannot reach api.example.org: HTTPSConnectionPool(host='api.example.org', port=443): refused",
        "qgen@2025-05: llm role generator: key *** refused (401)",
    ]
    bug = ZeroDivisionError("division by zero")
    sys.excepthook(type(bug), bug, None)
    assert printed == [bug]  # a bug keeps its traceback
    monkeypatch.setenv("ALMANAC_DEBUG", "1")
    sys.excepthook(type(full), full, None)
    assert printed == [bug, full]


def _stage(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "stages.gdelt_month", "--step", "gdelt_download", *args],
        cwd=cwd, capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip


def test_a_stage_refuses_a_bad_month_or_param_in_one_line_before_any_path(tmp_path: Path) -> None:
    shipped = (ROOT / "params.yaml").read_text()
    (tmp_path / "params.yaml").write_text(shipped)
    done = _stage(["--month", "../../x"], tmp_path)
    assert done.returncode == 1
    assert (
        done.stderr
        == "gdelt_download@../../x: --month '../../x': month must look like 2025-05, got '../../x'\n"
    )
    done = _stage(["--month", "2024-01"], tmp_path)
    assert done.returncode == 1 and "--month 2024-01 is not in params.yaml months" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    (tmp_path / "bad.yaml").write_text(
        shipped.replace("questions_per_article: 3", "questions_per_article: 0")
    )
    done = _stage(["--month", "2025-05", "--params", "bad.yaml"], tmp_path)
    assert done.returncode == 1
    assert done.stderr == (
        "gdelt_download@2025-05: bad.yaml: foresight.qgen.questions_per_article must be >= 1, got 0\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.yaml", "params.yaml"]  # nothing written


def test_a_full_disk_under_pyarrow_names_the_parquet_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from almanac.core.io import write_parquet

    def full(table: pa.Table, where: object, **options: object) -> None:
        # What pyarrow raised writing to a full 256 KiB tmpfs (measured by hand; tests mount nothing).
        raise OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")

    monkeypatch.setattr(pq, "write_table", full)
    target = tmp_path / "data" / "articles.parquet"
    with pytest.raises(OSError) as raised:
        write_parquet(pa.table({"n": [1, 2]}), target)
    assert describe(raised.value) == f"no space left on the device writing {target}"
    assert list(target.parent.iterdir()) == []
