"""Fine-tuning the learned-sparse encoder (SPLADE-tiny) on the project's training material (issue 51)."""
