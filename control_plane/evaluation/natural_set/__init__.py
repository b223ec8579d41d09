"""The natural clinical question collection (testsets/clinical-natural): hand-written questions over the
clinical records, judged by reading pooled chunks. ``pool`` gathers the chunks to judge; ``build`` splits
the questions by topic group and writes the qrels from the judgments file."""
