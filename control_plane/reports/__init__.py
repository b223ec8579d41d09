"""What every report shares: markdown tables and saved figures (the evaluation report and each benchmark)."""
