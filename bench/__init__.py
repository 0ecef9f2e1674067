"""Benchmarks; their results are written up in docs/PERFORMANCE.md."""
