"""Session-wide test settings."""

from __future__ import annotations

import os

# No test may touch the network: the Hugging Face libraries (card parsing, `datasets` loading published
# folders) must stay offline. Set before either library is imported, since both read these at import.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
