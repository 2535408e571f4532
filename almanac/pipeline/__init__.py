"""The pipeline: one declaration per DVC stage, and ``dvc.yaml`` rendered from them (``almanac dag``).

``declare`` holds the :class:`~almanac.pipeline.declare.Stage` record; ``corpus``, ``foresight``, ``events``,
``mirai``, ``futurex`` and ``finals`` declare the stages of each part of the DAG; ``dag.STAGES`` lists them in
``dvc.yaml`` order; ``imports`` walks a stage module's imports; ``render`` writes ``dvc.yaml``.
This face imports nothing, so a stage whose code reads one declaration module depends on that file only.
"""
