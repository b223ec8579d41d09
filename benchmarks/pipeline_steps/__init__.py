"""Where a clinical pipeline's time goes, step by step: each processor's milliseconds as OpenSearch itself
reports them (``verbose_pipeline``, OpenSearch 2.19+), over a split's questions, then the routing step
(the response-side ``ml_inference`` call to the clinical route model) against the size of the window it
routes, through temporary copies of the installed pipeline that fuse a smaller window (removed after).

    BIOHYBRID_CONFIG=control_plane/config/local.yaml python -m benchmarks.pipeline_steps \\
        --split clinical-natural/dev --index chunks-clinical \\
        --out model_artifacts/reports/clinical-pipeline-steps.md

Needs ``make run``'s stack (any chunk index with the routing fields: ``chunks-demo`` will do). The route
model's own time is read from the inference service's metrics around the run, so the report can say how
much of the routing step is the model and how much is the processor around it.
"""
