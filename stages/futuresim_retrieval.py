"""DVC stage ``futuresim_retrieval``: each released OpenForesight question's top-k chunks under its cut-off,
beside the splits (``data/foresight/retrieval/<split>/<month>.parquet``)."""

import sys

from almanac.futuresim.retrieval_stage import run

if __name__ == "__main__":
    sys.exit(run())
