"""The contract pipeline: vendoring from the seeds and code generation."""
