"""What tests (and benches) share: helpers, not tests."""
