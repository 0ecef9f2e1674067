"""The document corpus written for Cove (tests/support/corpus/), checked whole."""
