"""openodke: measure knowledge-extraction pipelines."""
