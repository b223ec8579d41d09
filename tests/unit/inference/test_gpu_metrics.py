"""GPU series of the inference service: nvidia-smi's answer parsed, and the GPU model-time histogram
exported only for models that run on a GPU (none here: this machine has no GPU, so the collector itself,
which runs nvidia-smi, is not exercised)."""

from __future__ import annotations

from prometheus_client import generate_latest

from control_plane.inference.metrics import GpuReading, ServiceMetrics, parse_gpu_query


def test_nvidia_smi_readings_are_parsed_into_bytes_and_ratios() -> None:
    out = "0, 1024, 81559, 37\n1, 0, 81559, [N/A]\n"
    assert parse_gpu_query(out) == [
        GpuReading("0", 1024 * 2**20, 81559 * 2**20, 0.37),
        GpuReading("1", 0.0, 81559 * 2**20, None),
    ]


def test_no_gpu_series_without_a_model_on_a_gpu() -> None:
    metrics = ServiceMetrics()
    metrics.observe_batch("bge-small", 4, 0.02)
    text = generate_latest(metrics.registry).decode()
    assert metrics.gpu_enabled is False
    assert "gpu_embedding_duration_seconds" not in text and "biohybrid_gpu_" not in text


def test_model_time_on_the_gpu_is_observed_for_gpu_models_only() -> None:
    metrics = ServiceMetrics()
    metrics.enable_gpu("bge-small")
    metrics.observe_batch("bge-small", 4, 0.02)
    metrics.observe_batch("bge-small", 2, 0.2)
    metrics.observe_batch("splade-tiny", 4, 0.05)  # on CPU
    text = generate_latest(metrics.registry).decode()
    assert metrics.gpu_enabled is True
    assert 'gpu_embedding_duration_seconds_count{model="bge-small"} 2.0' in text
    assert 'gpu_embedding_duration_seconds_bucket{le="0.025",model="bge-small"} 1.0' in text
    assert 'gpu_embedding_duration_seconds_sum{model="bge-small"} 0.22' in text
    assert 'gpu_embedding_duration_seconds_count{model="splade-tiny"}' not in text
